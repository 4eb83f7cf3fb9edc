import { SyntheticCorpus } from './lib/synthetic';
import { Api, machine, modeFromArgs, startService } from './lib/service';

/**
 * Ingestion throughput: items per second from the first POST /v1/upserts to the last upsert `completed`.
 *   node dist/bench/ingest.js [--distributed] [--items 20000] [--bytes 1000] [--batch 500]
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const count = arg('items', 20000);
  const bytes = arg('bytes', 1000);
  const batch = arg('batch', 500);
  const corpus = new SyntheticCorpus();
  const items = Array.from({ length: count }, (_, i) => corpus.item(i, bytes));
  const avg = Math.round(items.reduce((s, it) => s + JSON.stringify(it).length, 0) / items.length);
  console.log(`ingest: ${count} items of ~${avg} bytes, batches of ${batch}; ${mode}; ${machine()}`);
  const service = await startService(mode);
  try {
    const api = await Api.withProject(service);
    const t0 = performance.now();
    let accepted = 0;
    await api.upsertAll(items, { batch, parallel: 4, accepted: () => (accepted = (performance.now() - t0) / 1000) });
    const seconds = (performance.now() - t0) / 1000;
    console.log(`| mode | items | all accepted (s) | all completed (s) | items/s |`);
    console.log(`|---|---|---|---|---|`);
    console.log(`| ${mode} | ${count} | ${accepted.toFixed(1)} | ${seconds.toFixed(1)} | ${Math.round(count / seconds)} |`);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
