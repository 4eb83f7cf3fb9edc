import { SyntheticCorpus } from './lib/synthetic';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * Latency of POST /v1/search (retrieval alone) and POST /v1/query (extractive answer) through the gateway at a
 * given index size, one request at a time after a warm-up.
 *   node dist/bench/latency.js [--distributed] [--chunks 100000] [--queries 300]
 * Items are ~600 bytes, one chunk each, so the index holds `--chunks` chunks.
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const chunks = arg('chunks', 100000);
  const queries = arg('queries', 300);
  const corpus = new SyntheticCorpus();
  console.log(`latency: ${chunks} chunks; ${mode}; ${machine()}`);
  const service = await startService(mode);
  try {
    const api = await Api.withProject(service);
    const t0 = performance.now();
    for (let i = 0; i < chunks; i += 10000) {
      const items = Array.from({ length: Math.min(10000, chunks - i) }, (_, j) => corpus.item(i + j, 600));
      await api.upsertAll(items, { batch: 500, parallel: 4 });
    }
    const ingestSeconds = (performance.now() - t0) / 1000;
    const questions = Array.from({ length: queries }, () => corpus.question());
    await timed(30, (i) => api.call('POST', '/search', { text: questions[i % questions.length] }));
    const search = await timed(queries, (i) => api.call('POST', '/search', { text: questions[i] }));
    const query = await timed(Math.min(queries, 200), (i) => api.call('POST', '/query', { text: questions[i] }));
    console.log(`| mode | chunks | ingest s | search p50 ms | search p99 ms | query p50 ms | query p99 ms |`);
    console.log(`|---|---|---|---|---|---|---|`);
    console.log(
      `| ${mode} | ${chunks} | ${ingestSeconds.toFixed(0)} | ${percentile(search, 50).toFixed(1)} | ${percentile(search, 99).toFixed(1)} | ${percentile(query, 50).toFixed(1)} | ${percentile(query, 99).toFixed(1)} |`,
    );
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
