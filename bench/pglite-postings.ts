import { PGlite, Transaction } from '@electric-sql/pglite';
import { termFrequencies } from '@askdata/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberArg } from './lib/args';
import { machine } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * What one posting row costs the embedded database, and how many rows an item brings: the ceiling of standalone
 * ingestion on the PostgreSQL index. Inserts the postings of synthetic items (~1.2 KB, the ingestion benchmark's)
 * into a table of posting rows (retrieval's layout before blocks) in PGlite on disk, a batch of 100 items per
 * transaction, under several server settings, and prints microseconds per posting (the first five batches not
 * counted); then counts, over batches of 100 and 500 items, postings per item and distinct terms per item (what one
 * row per term and batch would write). Last, what the index writes cost an item, with the document-frequency upsert,
 * in two layouts over --items items: one posting row per (term, chunk), as retrieval wrote them before its blocks
 * (100 items a transaction), and one row per (term, impact band) and batch holding arrays of chunks and impacts (500
 * items a transaction).
 *   node dist/bench/pglite-postings.js [--batches 30] [--items 10000]
 */
const SETTINGS: Record<string, string[]> = {
  defaults: [],
  'full_page_writes off': ['full_page_writes=off'],
  'wal_level minimal': ['full_page_writes=off', 'wal_level=minimal', 'max_wal_senders=0'],
  'large buffers, rare checkpoints, no synchronous commit': ['shared_buffers=512MB', 'max_wal_size=4GB', 'checkpoint_timeout=3600', 'synchronous_commit=off'],
};

const corpus = new SyntheticCorpus();
const analyzed = (i: number) => {
  const item = corpus.item(i, 1000);
  return termFrequencies(`${item.data.title}\n${item.data.text}`);
};

interface Posting {
  term: string;
  impact: number;
  chunk: string;
}

/** The postings of items first .. first + count - 1, one chunk each, impacts as retrieval stores them (k1 0.9). */
function postingsOf(first: number, count: number): Posting[] {
  const postings: Posting[] = [];
  for (let i = first; i < first + count; i++) {
    const chunk = randomUUID();
    for (const [term, tf] of analyzed(i)) postings.push({ term: term.slice(0, 64), impact: Math.round(((tf * 1.9) / (tf + 0.9)) * 10000), chunk });
  }
  return postings;
}

const TABLES = `
  CREATE TABLE postings (project_id uuid NOT NULL, term varchar(64) NOT NULL, impact int NOT NULL, chunk_id uuid NOT NULL,
    tenant int, collection varchar(64) NOT NULL, PRIMARY KEY (project_id, term, impact, chunk_id));
  CREATE TABLE blocks (project_id uuid NOT NULL, term varchar(64) NOT NULL, band smallint NOT NULL, block bigint NOT NULL,
    chunk_ids uuid[] NOT NULL, impacts int[] NOT NULL, PRIMARY KEY (project_id, term, band, block));
  CREATE TABLE terms (project_id uuid NOT NULL, term varchar(64) NOT NULL, df int NOT NULL, PRIMARY KEY (project_id, term));`;

/** A PGlite database on disk with the tables above, for the time of `use`. */
async function withDatabase<T>(settings: string[], use: (db: PGlite) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'askdata-pglite-'));
  const db = await PGlite.create({ dataDir: dir, postgresqlconf: settings });
  try {
    await db.exec(TABLES);
    return await use(db);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One posting row per (term, chunk), as retrieval wrote them before its blocks. */
async function insertRows(tx: Transaction, project: string, postings: Posting[]): Promise<void> {
  await tx.query(`INSERT INTO postings SELECT $1, t, i, c, NULL, 'default' FROM unnest($2::text[], $3::int[], $4::uuid[]) AS x(t, i, c)`, [
    project,
    postings.map((p) => p.term),
    postings.map((p) => p.impact),
    postings.map((p) => p.chunk),
  ]);
}

async function costPerPosting(settings: string[], batches: number): Promise<number> {
  return withDatabase(settings, async (db) => {
    const project = randomUUID();
    let micros = 0;
    let rows = 0;
    for (let b = 0; b < batches; b++) {
      const postings = postingsOf(b * 100, 100);
      const started = process.hrtime.bigint();
      await db.transaction((tx) => insertRows(tx, project, postings));
      if (b >= 5) {
        micros += Number(process.hrtime.bigint() - started) / 1000;
        rows += postings.length;
      }
    }
    return micros / rows;
  });
}

function rowsPerItem(batch: number, batches: number): { postings: number; terms: number } {
  let postings = 0;
  let terms = 0;
  for (let b = 0; b < batches; b++) {
    const distinct = new Set<string>();
    for (let i = 0; i < batch; i++) {
      const tf = analyzed(b * batch + i);
      postings += tf.size;
      for (const t of tf.keys()) distinct.add(t);
    }
    terms += distinct.size;
  }
  return { postings: postings / (batch * batches), terms: terms / (batch * batches) };
}

/** Milliseconds of index writes per item (postings or blocks, and document frequencies), after a first tenth. */
async function layoutCost(layout: 'rows' | 'blocks', items: number): Promise<number> {
  const batch = layout === 'rows' ? 100 : 500;
  return withDatabase([], async (db) => {
    const project = randomUUID();
    let micros = 0;
    let counted = 0;
    for (let b = 0; b * batch < items; b++) {
      const postings = postingsOf(b * batch, batch);
      const terms = postings.map((p) => p.term);
      const started = process.hrtime.bigint();
      await db.transaction(async (tx) => {
        if (layout === 'rows') {
          await insertRows(tx, project, postings);
        } else {
          const groups = new Map<string, { term: string; band: number; chunks: string[]; impacts: number[] }>();
          for (const p of postings) {
            const band = Math.floor(Math.log(p.impact) / Math.log(1.25));
            const key = `${p.term}\u0000${band}`;
            const g = groups.get(key) ?? { term: p.term, band, chunks: [], impacts: [] };
            g.chunks.push(p.chunk);
            g.impacts.push(p.impact);
            groups.set(key, g);
          }
          const rows = [...groups.values()];
          await tx.query(
            `INSERT INTO blocks SELECT $1, r.term, r.band, $2, ARRAY(SELECT jsonb_array_elements_text(r.chunks)::uuid), ARRAY(SELECT jsonb_array_elements_text(r.impacts)::int)
             FROM jsonb_to_recordset($3::jsonb) AS r(term text, band smallint, chunks jsonb, impacts jsonb)`,
            [project, b, JSON.stringify(rows)],
          );
        }
        await tx.query(
          `INSERT INTO terms SELECT $1, term, count(*) FROM unnest($2::text[]) AS term GROUP BY term ORDER BY term
           ON CONFLICT (project_id, term) DO UPDATE SET df = terms.df + EXCLUDED.df`,
          [project, terms],
        );
      });
      if (b * batch >= items / 10) {
        micros += Number(process.hrtime.bigint() - started) / 1000;
        counted += batch;
      }
    }
    return micros / counted / 1000;
  });
}

async function main(): Promise<void> {
  const batches = numberArg('batches', 30);
  console.log(`pglite-postings: ${batches} batches of 100 items of ~1.2 KB; ${machine()}`);
  console.log('| server settings | µs per posting |');
  console.log('|---|---|');
  for (const [name, settings] of Object.entries(SETTINGS)) console.log(`| ${name} | ${(await costPerPosting(settings, batches)).toFixed(1)} |`);
  console.log('');
  console.log('| items per index batch | postings per item | distinct terms per item (one row per term and batch) |');
  console.log('|---|---|---|');
  for (const batch of [100, 500]) {
    const r = rowsPerItem(batch, 4);
    console.log(`| ${batch} | ${r.postings.toFixed(1)} | ${r.terms.toFixed(1)} |`);
  }
  const items = numberArg('items', 10000);
  console.log('');
  console.log(`| layout (${items} items) | index writes, ms per item | items/s if nothing else ran |`);
  console.log('|---|---|---|');
  for (const [layout, name] of [
    ['rows', 'a row per (term, chunk), 100 items a transaction'],
    ['blocks', 'a row per (term, impact band, batch), 500 items a transaction'],
  ] as const) {
    const ms = await layoutCost(layout, items);
    console.log(`| ${name} | ${ms.toFixed(2)} | ${Math.round(1000 / ms)} |`);
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
