import { PGlite } from '@electric-sql/pglite';
import { jsonCopy } from '@askdata/common/bus/json-copy';
import { ChunkInput } from '@askdata/contracts';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { prepareBatch } from '../apps/retrieval/src/index/batch-preparation';
import { packForward, unpackForward } from '../apps/retrieval/src/index/forward-entries';
import { join } from 'node:path';
import { numberArg } from './lib/args';
import { DATA, jsonl } from './lib/data';
import { buildDir, machine } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * Parts of ingestion, timed alone:
 * - an upsert of 500 items (~1.2 KB each) through the gateway's validation pipe, by the build benchmarked;
 * - the in-process bus's copy of an upsert of 500 items (~1.25 KB each), through JSON text and with `jsonCopy`;
 * - the chunk rows of an index batch of 2,000 chunks inserted into PGlite (in memory, retrieval's table), texts and
 *   forward indexes packed as retrieval writes them;
 * - the forward indexes of 2,000 chunks (~1 KB) packed and unpacked, their bytes against jsonb's (as stored before
 *   they were packed), and jsonb's text parsed as the database driver took it;
 * - an index batch of 500 items (~1.2 KB) prepared (analysed, its rows and blocks made: the work of retrieval's
 *   preparation thread), by the build benchmarked (ASKDATA_DIST=<other build>/dist for another);
 * - the language of 2,000 items (~1.2 KB) detected (ingestion's analysis thread), by the build benchmarked; and when
 *   ../shared/data holds SciFact, how many of its abstracts that build takes as English, and how many CLD3 alone does.
 *   node dist/bench/ingest-parts.js [--rounds 8]
 */
const rounds = numberArg('rounds', 8);
const corpus = new SyntheticCorpus();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function busCopy(): void {
  const upsert = {
    scope: { projectId: randomUUID() },
    collection: { slug: 'docs' },
    items: Array.from({ length: 500 }, (_, i) => ({ ...corpus.item(i, 1000), tenant: null, url: null })),
  };
  const times = { json: [] as number[], jsonCopy: [] as number[] };
  for (let r = 0; r < rounds * 5; r++) {
    let t = performance.now();
    JSON.parse(JSON.stringify(upsert));
    times.json.push(performance.now() - t);
    t = performance.now();
    jsonCopy(upsert);
    times.jsonCopy.push(performance.now() - t);
  }
  console.log('| bus copy of an upsert of 500 items | ms, median |');
  console.log('|---|---|');
  console.log(`| JSON.parse(JSON.stringify(...)) | ${median(times.json).toFixed(2)} |`);
  console.log(`| jsonCopy | ${median(times.jsonCopy).toFixed(2)} |`);
}

const CHUNKS = `CREATE TABLE chunks (id bigint PRIMARY KEY, project_id uuid NOT NULL, collection varchar(64) NOT NULL, tenant int,
  item_id uuid NOT NULL, client_item_id varchar(255) NOT NULL, n int NOT NULL, packed bytea STORAGE EXTERNAL, url text,
  metadata jsonb NOT NULL DEFAULT '{}', length int NOT NULL, forward bytea STORAGE EXTERNAL, block bigint NOT NULL DEFAULT 0)
  WITH (toast_tuple_target = 8160);
  CREATE INDEX ON chunks (project_id, item_id);`;

const INSERT = `INSERT INTO chunks (id, project_id, collection, tenant, item_id, client_item_id, n, packed, url, metadata, length, forward, block)
  SELECT c.id, $1, c.collection, c.tenant, c.item_id, c.client_item_id, c.n, decode(c.packed, 'base64'), c.url, COALESCE(c.metadata, '{}'::jsonb), c.length, decode(c.forward, 'base64'), c.block
  FROM jsonb_to_recordset($2::jsonb)
    AS c(id bigint, collection text, tenant int, item_id uuid, client_item_id text, n int, packed text, url text, metadata jsonb, length int, forward text, block bigint)`;

/** Synthetic items `first` to `first + count - 1` of about `bytes` each, as retrieval is given them (one chunk each). */
function chunkInputs(first: number, count: number, bytes: number): ChunkInput[] {
  return Array.from({ length: count }, (_, i) => {
    const it = corpus.item(first + i, bytes);
    return { itemId: randomUUID(), clientItemId: it.id, collection: 'docs', tenant: null, url: null, metadata: it.metadata, title: it.data.title, chunks: [it.data.text] };
  });
}

async function chunkRows(): Promise<void> {
  const db = await PGlite.create();
  await db.exec(CHUNKS);
  const project = randomUUID();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const items = chunkInputs(r * 2000, 2000, 1000);
    const { batch } = await prepareBatch(items, { block: String(r + 1), chunkCount: 0, totalLength: 0 }, { k1: 0.9, b: 0.4, avgLength: 100 });
    const t = performance.now();
    await db.query(INSERT, [project, batch!.chunks]);
    if (r > 0) times.push(performance.now() - t);
  }
  await db.close();
  console.log('\n| chunk rows of 2,000 chunks into PGlite | ms, median |');
  console.log('|---|---|');
  console.log(`| texts and forward indexes packed | ${median(times).toFixed(0)} |`);
}

async function forwardIndexes(): Promise<void> {
  const { batch } = await prepareBatch(chunkInputs(0, 2000, 1000), { block: '1', chunkCount: 0, totalLength: 0 }, { k1: 0.9, b: 0.4, avgLength: 100 });
  const packed = (JSON.parse(batch!.chunks) as Array<{ forward: string }>).map((r) => Buffer.from(r.forward, 'base64'));
  const forward = packed.map(unpackForward);
  const jsonb = forward.map(({ names, entries }) => JSON.stringify(Object.fromEntries(names.map((name, k) => [name, entries[k]]))));
  const db = await PGlite.create();
  const { rows } = await db.query<{ bytes: number }>(`SELECT sum(pg_column_size(j::jsonb))::int AS bytes FROM unnest($1::text[]) AS j`, [jsonb]);
  await db.close();
  const times = { pack: [] as number[], unpack: [] as number[], parse: [] as number[] };
  const each = (f: (i: number) => unknown) => {
    const t = performance.now();
    for (let i = 0; i < packed.length; i++) f(i);
    return ((performance.now() - t) * 1000) / packed.length;
  };
  for (let r = 0; r <= rounds; r++) {
    const pack = each((i) => packForward(forward[i].names, forward[i].entries));
    const unpack = each((i) => unpackForward(packed[i]));
    const parse = each((i) => JSON.parse(jsonb[i]));
    if (r === 0) continue;
    times.pack.push(pack);
    times.unpack.push(unpack);
    times.parse.push(parse);
  }
  const terms = forward.reduce((n, f) => n + f.names.length, 0) / forward.length;
  const bytes = packed.reduce((n, p) => n + p.length, 0) / packed.length;
  console.log(`\n| forward indexes of 2,000 chunks (${terms.toFixed(0)} terms a chunk) | bytes a chunk | µs a chunk, median |`);
  console.log('|---|---|---|');
  console.log(`| packed (\`packForward\`) | ${bytes.toFixed(0)} | ${median(times.pack).toFixed(1)} |`);
  console.log(`| unpacked (\`unpackForward\`) | - | ${median(times.unpack).toFixed(1)} |`);
  console.log(`| as jsonb, its text parsed (\`JSON.parse\`) | ${(rows[0].bytes / packed.length).toFixed(0)} | ${median(times.parse).toFixed(1)} |`);
}

async function preparation(): Promise<void> {
  const prepare = (require(join(buildDir(), 'apps/retrieval/src/index/batch-preparation.js')) as { prepareBatch: typeof prepareBatch }).prepareBatch;
  const batches = Array.from({ length: 8 }, (_, b) => chunkInputs(b * 500, 500, 1200));
  const times: number[] = [];
  // Posting blocks of the batches by their count of postings (the last column of the blocks written).
  const sizes = new Map<string, number>();
  for (let r = 0; r <= rounds; r++) {
    const t = performance.now();
    for (const [b, items] of batches.entries()) {
      const { batch } = await prepare(items, { block: String(b + 1), chunkCount: 10000, totalLength: 2_000_000 }, { k1: 0.9, b: 0.4, avgLength: 200 });
      if (r > 0 || !batch) continue;
      for (const n of batch.blocks[6].slice(1, -1).split(',').map(Number)) {
        const key = n >= 10 ? '10 or more' : String(n);
        sizes.set(key, (sizes.get(key) ?? 0) + 1);
      }
    }
    if (r > 0) times.push(((performance.now() - t) * 1000) / 4000);
  }
  console.log(`\n| index batches of 500 items prepared (${buildDir()}) | µs an item, median |`);
  console.log('|---|---|');
  console.log(`| analysed, chunk rows and posting blocks made | ${median(times).toFixed(0)} |`);
  const blocks = [...sizes.values()].reduce((sum, n) => sum + n, 0);
  console.log(`\n| posting blocks of the 8 batches, by postings they hold | blocks | share |`);
  console.log('|---|---|---|');
  for (const [key, n] of [...sizes].sort(([a], [b]) => parseInt(a) - parseInt(b))) console.log(`| ${key} | ${n} | ${((100 * n) / blocks).toFixed(0)}% |`);
  console.log(`| in all (${(blocks / 4000).toFixed(1)} an item) | ${blocks} | 100% |`);
}

type Detect = (text: string) => Promise<string | null>;

async function detection(): Promise<void> {
  const build = require(join(buildDir(), 'libs/common/src/text/detect.js')) as {
    detectLanguage: Detect;
    plainlyEnglish?: (t: string) => boolean;
    cld3Language?: Detect;
  };
  const texts = Array.from({ length: 2000 }, (_, i) => {
    const it = corpus.item(i, 1200);
    return `${it.data.title}\n${it.data.text}`;
  });
  const times: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    const t = performance.now();
    for (const text of texts) await build.detectLanguage(text);
    if (r > 0) times.push(((performance.now() - t) * 1000) / texts.length);
  }
  console.log(`\n| language of 2,000 items detected (${buildDir()}) | µs an item, median |`);
  console.log('|---|---|');
  console.log(`| first 400 characters | ${median(times).toFixed(0)} |`);
  if (!existsSync(join(DATA, 'scifact/corpus.jsonl'))) return;
  const abstracts = jsonl<{ title: string; text: string }>('scifact/corpus.jsonl').map((d) => `${d.title}\n${d.text}`);
  let english = 0;
  let plainly = 0;
  let cld3English = 0;
  for (const text of abstracts) {
    if ((await build.detectLanguage(text)) === 'en') english++;
    const sample = text.slice(0, 400);
    if (!build.plainlyEnglish?.(sample)) continue;
    plainly++;
    // What CLD3 alone says of those (the build's detection without its English rule).
    if ((await build.cld3Language?.(sample)) === 'en') cld3English++;
  }
  console.log(`\nSciFact, ${abstracts.length} abstracts: English ${english}; plainly English (no CLD3) ${plainly}, of which CLD3 alone reads as English ${cld3English}`);
}

/** An upsert of 500 items (~1.2 KB) through the gateway's validation pipe, by the build benchmarked. */
async function upsertValidation(): Promise<void> {
  type Pipe = { transform(value: unknown, meta: { type: 'body'; metatype: unknown }): unknown };
  const { DtoPipe } = require(join(buildDir(), 'apps/gateway/src/http/dto.pipe.js')) as { DtoPipe: new (rules: unknown) => Pipe };
  const { CreateUpsertDto } = require(join(buildDir(), 'libs/contracts/src/index.js')) as { CreateUpsertDto: unknown };
  const pipe = new DtoPipe({ perPageErrors: () => ({}) });
  const body = JSON.stringify({ collection: { slug: 'docs' }, items: Array.from({ length: 500 }, (_, i) => corpus.item(i, 1200)) });
  const times: number[] = [];
  for (let r = 0; r <= rounds * 5; r++) {
    const value = JSON.parse(body) as unknown;
    const t = performance.now();
    const dto = (await pipe.transform(value, { type: 'body', metatype: CreateUpsertDto })) as { items: unknown[] };
    if (r > 0) times.push(((performance.now() - t) * 1000) / dto.items.length);
  }
  console.log(`\n| an upsert of 500 items validated by the gateway (${buildDir()}) | µs an item, median |`);
  console.log('|---|---|');
  console.log(`| its body through the validation pipe | ${median(times).toFixed(1)} |`);
}

async function main(): Promise<void> {
  console.log(`ingest-parts: ${rounds} rounds; ${machine()}\n`);
  await upsertValidation();
  busCopy();
  await chunkRows();
  await forwardIndexes();
  await preparation();
  await detection();
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
