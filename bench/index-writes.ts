import { ChunkInput } from '@askdata/contracts';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { prepareBatch } from '../apps/retrieval/src/index/batch-preparation';
import { INSERT_BLOCKS, INSERT_CHUNKS } from '../apps/retrieval/src/index/postgres-index';
import { numberArg } from './lib/args';
import { machine, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * What an index batch's writes cost PostgreSQL, by statement, in two layouts of the posting blocks: retrieval's (a
 * row per term, band and batch: `INSERT_BLOCKS`) and one that appends a batch's postings to the term's newest row while
 * that holds at most `--cap` postings, a new row otherwise (`APPEND_BLOCKS` below; not what retrieval writes). Batches
 * of synthetic items (~1.2 KB, one chunk each) are prepared as retrieval prepares them and written, the layouts taking
 * turns, into two projects of a fresh database (distributed mode's, on the local PostgreSQL); each statement is timed
 * from the client, with the WAL it wrote. Prints, per layout, the blocks statement's time and WAL an item, then the
 * rows, postings and bytes the blocks took, and the chunk rows' statement beside them.
 *   node dist/bench/index-writes.js [--batches 24] [--items 500] [--cap 32]
 */
const batches = numberArg('batches', 24);
const perBatch = numberArg('items', 500);
const cap = numberArg('cap', 32);

/** The batch's blocks appended to each (term, band, collection)'s newest row when the sum fits in `$10` postings. */
const APPEND_BLOCKS = `WITH g AS (
    SELECT g.term, g.band, g.collection, g.chunks::bigint[] AS chunks, g.impacts::int[] AS impacts, g.tenants::int[] AS tenants, g.n
    FROM unnest($3::text[], $4::smallint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[]) AS g(term, band, collection, chunks, impacts, tenants, n)),
  o AS (
    SELECT g.*, r.block AS open FROM g LEFT JOIN LATERAL (
      SELECT b.block, b.n FROM retrieval.posting_blocks b
      WHERE b.project_id = $1 AND b.term = g.term AND b.band = g.band AND b.collection = g.collection
      ORDER BY b.block DESC LIMIT 1) r ON r.n + g.n <= $10),
  u AS (
    UPDATE retrieval.posting_blocks b SET chunk_ids = b.chunk_ids || o.chunks, impacts = b.impacts || o.impacts,
      tenants = CASE WHEN cardinality(b.tenants) = 0 AND cardinality(o.tenants) = 0 THEN b.tenants
        ELSE b.tenants || array_fill(NULL::int, ARRAY[cardinality(b.chunk_ids) - cardinality(b.tenants)])
          || o.tenants || array_fill(NULL::int, ARRAY[o.n - cardinality(o.tenants)]) END,
      n = b.n + o.n
    FROM o WHERE o.open IS NOT NULL AND b.project_id = $1 AND b.term = o.term AND b.band = o.band AND b.block = o.open AND b.collection = o.collection)
  INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants, n)
  SELECT $1, o.term, o.band, $2, o.collection, o.chunks, o.impacts, o.tenants, o.n FROM o WHERE o.open IS NULL`;

type Layout = 'a row per batch' | 'appended';
const LAYOUTS: Layout[] = ['a row per batch', 'appended'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  console.log(`index writes: ${batches} batches of ${perBatch} synthetic items a layout, appended up to ${cap} postings a row; ${machine()}`);
  const corpus = new SyntheticCorpus();
  const service = await startService('distributed');
  const db = new Client({ connectionString: service.databaseUrl! });
  try {
    await db.connect();
    const projects = { 'a row per batch': randomUUID(), appended: randomUUID() } satisfies Record<Layout, string>;
    const times = Object.fromEntries(LAYOUTS.map((l) => [l, { chunks: [] as number[], blocks: [] as number[], wal: [] as number[] }])) as Record<
      Layout,
      { chunks: number[]; blocks: number[]; wal: number[] }
    >;
    const wal = async () => Number((await db.query<{ at: string }>(`SELECT (pg_current_wal_insert_lsn() - '0/0')::text AS at`)).rows[0].at);
    for (let b = 0; b < batches; b++) {
      const items: ChunkInput[] = Array.from({ length: perBatch }, (_, i) => {
        const it = corpus.item(b * perBatch + i, 1000);
        return { itemId: randomUUID(), clientItemId: it.id, collection: 'docs', tenant: null, url: null, metadata: it.metadata, title: it.data.title, chunks: [it.data.text] };
      });
      for (const layout of b % 2 ? [...LAYOUTS].reverse() : LAYOUTS) {
        const { rows } = await db.query<{ block: string }>(`SELECT nextval('retrieval.posting_block_seq')::text AS block`);
        const { batch } = await prepareBatch(items, { block: rows[0].block, chunkCount: b * perBatch, totalLength: b * perBatch * 180 }, { k1: 0.9, b: 0.4, avgLength: 200 });
        if (!batch) throw new Error('a batch without chunks');
        const project = projects[layout];
        await db.query('BEGIN');
        let t = performance.now();
        await db.query(INSERT_CHUNKS, [project, batch.chunks]);
        times[layout].chunks.push(performance.now() - t);
        const before = await wal();
        t = performance.now();
        if (layout === 'appended') await db.query(APPEND_BLOCKS, [project, batch.block, ...batch.blocks, cap]);
        else await db.query(INSERT_BLOCKS, [project, batch.block, ...batch.blocks]);
        times[layout].blocks.push(performance.now() - t);
        times[layout].wal.push((await wal()) - before);
        await db.query('COMMIT');
      }
    }
    const late = Math.floor((batches * 3) / 4);
    console.log(
      `\n| layout | blocks: ms a batch, median (last quarter) | µs an item | WAL KB an item | rows | rows an item | postings | bytes of the rows MB | chunk rows: ms a batch |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const layout of LAYOUTS) {
      const t = times[layout];
      const { rows } = await db.query<{ rows: number; postings: number; bytes: string }>(
        `SELECT count(*)::int AS rows, sum(n)::int AS postings, sum(pg_column_size(b.*))::text AS bytes FROM retrieval.posting_blocks b WHERE project_id = $1`,
        [projects[layout]],
      );
      const [r] = rows;
      const items = batches * perBatch;
      console.log(
        `| ${layout} | ${median(t.blocks).toFixed(1)} (${median(t.blocks.slice(late)).toFixed(1)}) | ${((median(t.blocks) * 1000) / perBatch).toFixed(0)} | ${(median(t.wal) / 1024 / perBatch).toFixed(1)} | ${r.rows} | ${(r.rows / items).toFixed(1)} | ${r.postings} | ${(Number(r.bytes) / 2 ** 20).toFixed(1)} | ${median(t.chunks).toFixed(1)} |`,
      );
    }
  } finally {
    await db.end().catch(() => undefined);
    await service.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
