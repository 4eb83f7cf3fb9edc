import { Client } from 'pg';
import { listArg } from './lib/args';
import { Api, machine, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * What takes the space: distributed mode (so the tables can be measured on the local PostgreSQL), synthetic items of
 * ~1.2 KB ingested up to each size, then every table of the apps' schemas with its heap, TOAST and indexes
 * (`pg_relation_size`, `pg_table_size`, `pg_indexes_size`), after the service's own vacuum has had its pause.
 *   node dist/bench/storage.js [--sizes 10000,100000]
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

async function main(): Promise<void> {
  const sizes = listArg('sizes', ['10000', '100000']).map(Number);
  console.log(`storage: distributed, synthetic items of ~1.2 KB, measured at ${sizes.join(', ')}; ${machine()}`);
  const corpus = new SyntheticCorpus();
  const service = await startService('distributed');
  try {
    const api = await Api.withProject(service);
    let have = 0;
    let json = 0;
    for (const size of sizes) {
      const t = performance.now();
      for (let i = have; i < size; i += 10000) {
        const items = Array.from({ length: Math.min(10000, size - i) }, (_, j) => corpus.item(i + j, 1200));
        json += items.reduce((s, it) => s + JSON.stringify(it).length, 0);
        await api.upsertAll(items);
      }
      const rate = (size - have) / ((performance.now() - t) / 1000);
      have = size;
      // The service vacuums and analyses 5 s into a pause in writing.
      await new Promise((r) => setTimeout(r, 12000));
      const rows = await tables(service.databaseUrl!);
      const total = rows.reduce((s, r) => s + r.heap + r.toast + r.indexes, 0);
      console.log(`\n${size} items, ${mb(json)} MB of JSON sent, ingested at ${rate.toFixed(0)} items/s; tables ${mb(total)} MB (${(total / json).toFixed(2)}x the JSON)`);
      console.log('| table | rows (estimate) | heap MB | TOAST MB | indexes MB | total MB |');
      console.log('|---|---|---|---|---|---|');
      for (const r of rows.filter((r) => r.heap + r.toast + r.indexes > 256 * 1024)) {
        console.log(`| ${r.name} | ${r.rows} | ${mb(r.heap)} | ${mb(r.toast)} | ${mb(r.indexes)} | ${mb(r.heap + r.toast + r.indexes)} |`);
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
