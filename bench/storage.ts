import { Client } from 'pg';
import { listArg, numberArg } from './lib/args';
import { Api, backgroundSettled, machine, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * What takes the space: distributed mode (so the tables can be measured on the local PostgreSQL), synthetic items of
 * ~1.2 KB ingested up to each size in upserts of 500 (and with `--trickle N`, then N more sent one an upsert by three
 * clients, as an application sends its changes), then every table of the apps' schemas with its heap, TOAST and
 * indexes (`pg_relation_size`, `pg_table_size`, `pg_indexes_size`), and the posting blocks' live rows and bytes, once
 * the service's merges of posting blocks and its vacuums have stood still.
 *   node dist/bench/storage.js [--sizes 10000,100000] [--trickle 1500]
 */
async function tables(url: string): Promise<Array<{ name: string; rows: number; heap: number; toast: number; indexes: number }>> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ name: string; rows: string; heap: string; toast: string; indexes: string }>(
      `SELECT n.nspname || '.' || c.relname AS name, GREATEST(c.reltuples, 0)::bigint AS rows, pg_relation_size(c.oid) AS heap,
              pg_table_size(c.oid) - pg_relation_size(c.oid) AS toast, pg_indexes_size(c.oid) AS indexes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('gateway', 'ingestion', 'catalog', 'retrieval', 'conversation') AND c.relkind = 'r'
        ORDER BY pg_total_relation_size(c.oid) DESC`,
    );
    return rows.map((r) => ({ name: r.name, rows: Number(r.rows), heap: Number(r.heap), toast: Number(r.toast), indexes: Number(r.indexes) }));
  } finally {
    await db.end();
  }
}

const mb = (b: number) => (b / 2 ** 20).toFixed(1);

/** The posting blocks' live rows and their bytes (the rows as stored, without the space dead ones leave). */
async function liveBlocks(url: string): Promise<{ rows: number; bytes: number }> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ rows: number; bytes: string }>(
      `SELECT count(*)::int AS rows, COALESCE(sum(pg_column_size(b.*)), 0)::text AS bytes FROM retrieval.posting_blocks b`,
    );
    return { rows: rows[0].rows, bytes: Number(rows[0].bytes) };
  } finally {
    await db.end();
  }
}

/** Bytes each column of a table takes as stored (`pg_column_size`: compressed where it is), largest first. */
async function columns(url: string, table: string): Promise<Array<{ column: string; bytes: number }>> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const [schema, name] = table.split('.');
    const { rows: names } = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
      [schema, name],
    );
    const sums = names.map((c) => `COALESCE(sum(pg_column_size(t.${JSON.stringify(c.column_name)})), 0)::text`).join(', ');
    const { rows } = await db.query<string[]>({ text: `SELECT ${sums} FROM ${table} t`, rowMode: 'array' });
    const values = rows[0];
    return names.map((c, i) => ({ column: c.column_name, bytes: Number(values[i]) })).sort((a, b) => b.bytes - a.bytes);
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  const sizes = listArg('sizes', ['10000', '100000']).map(Number);
  const trickle = numberArg('trickle', 0);
  console.log(
    `storage: distributed, synthetic items of ~1.2 KB, measured at ${sizes.join(', ')}${trickle ? `, then after ${trickle} more upserted one an upsert` : ''}; ${machine()}`,
  );
  const corpus = new SyntheticCorpus();
  const service = await startService('distributed');
  try {
    const api = await Api.withProject(service);
    let have = 0;
    let json = 0;
    const loads: Array<{ size: number; upsert: (from: number, to: number) => Promise<void> }> = sizes.map((size) => ({
      size,
      upsert: async (from, to) => {
        for (let i = from; i < to; i += 10000) {
          const items = Array.from({ length: Math.min(10000, to - i) }, (_, j) => corpus.item(i + j, 1200));
          json += items.reduce((s, it) => s + JSON.stringify(it).length, 0);
          await api.upsertAll(items);
        }
      },
    }));
    if (trickle)
      loads.push({
        size: (sizes[sizes.length - 1] ?? 0) + trickle,
        // Three clients, each sending one item an upsert and waiting for it.
        upsert: async (from, to) => {
          let next = from;
          await Promise.all(
            Array.from({ length: 3 }, async () => {
              while (next < to) {
                const item = corpus.item(next++, 1200);
                json += JSON.stringify(item).length;
                await api.upsertAll([item]);
              }
            }),
          );
        },
      });
    for (const { size, upsert } of loads) {
      const t = performance.now();
      await upsert(have, size);
      const rate = (size - have) / ((performance.now() - t) / 1000);
      have = size;
      // The service merges posting blocks and vacuums 5 s into a pause in writing (BLOCK_MERGE_QUIET_MS).
      const merges = await backgroundSettled(service);
      const rows = await tables(service.databaseUrl!);
      const total = rows.reduce((s, r) => s + r.heap + r.toast + r.indexes, 0);
      console.log(`\n${size} items, ${mb(json)} MB of JSON sent, ingested at ${rate.toFixed(0)} items/s; tables ${mb(total)} MB (${(total / json).toFixed(2)}x the JSON)`);
      const live = await liveBlocks(service.databaseUrl!);
      console.log(
        `posting blocks merged so far: ${merges.merged} rows into ${merges.made} in ${merges.seconds.toFixed(1)} s (merges stopped by a write ${merges.stopped}, failed ${merges.failed}); live: ${live.rows} rows, ${mb(live.bytes)} MB; the table rewritten ${merges.rewrites} times so far, in ${merges.rewriteSeconds.toFixed(2)} s`,
      );
      console.log('| table | rows (estimate) | heap MB | TOAST MB | indexes MB | total MB |');
      console.log('|---|---|---|---|---|---|');
      for (const r of rows.filter((r) => r.heap + r.toast + r.indexes > 256 * 1024)) {
        console.log(`| ${r.name} | ${r.rows} | ${mb(r.heap)} | ${mb(r.toast)} | ${mb(r.indexes)} | ${mb(r.heap + r.toast + r.indexes)} |`);
      }
      for (const table of ['retrieval.chunks', 'retrieval.posting_blocks', 'catalog.items']) {
        const cols = await columns(service.databaseUrl!, table);
        console.log(`${table}, its live rows' columns as stored: ${cols.map((c) => `${c.column} ${mb(c.bytes)} MB`).join(', ')}`);
      }
    }
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
