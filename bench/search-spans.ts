import { listArg, numberArg } from './lib/args';
import { cpuMs } from './lib/cpu';
import { scifactItems, scifactQuestions } from './lib/data';
import { gatewayMetrics, machine, modeFromArgs, percentile, projectHolding, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * Where a search's time goes: SciFact's abstracts (or --corpus synthetic --docs N items of ~1.2 KB) indexed, then
 * each question searched once (top 10), and the service's own histograms read from /metrics: the HTTP request at
 * the gateway, the bus request to retrieval, and the index search inside retrieval; beside them the client's time
 * and that of GET /v1/items answered from the gateway's memory (HTTP, the key and the rate limit alone).
 *   node dist/bench/search-spans.js [--distributed] [--corpus scifact|synthetic] [--docs N] [--queries N]
 * With BENCH_NODE_ARGS="-r <checkout>/dist/bench/statement-times.js" the service prints its statements' times at exit.
 */
interface Sums {
  sum: number;
  count: number;
}

function histogram(metrics: string, name: string, labels: RegExp): Sums {
  const pick = (suffix: string) =>
    metrics
      .split('\n')
      .filter((l) => l.startsWith(`${name}_${suffix}{`) && labels.test(l))
      .reduce((s, l) => s + Number(l.split(' ').pop()), 0);
  return { sum: pick('sum'), count: pick('count') };
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const kind = listArg('corpus', ['scifact'])[0];
  const queries = numberArg('queries', 500);
  let items: Array<{ id: string; data: { title: string; text: string } }>;
  let questions: string[];
  if (kind === 'scifact') {
    items = scifactItems();
    questions = scifactQuestions().slice(0, queries);
  } else {
    const corpus = new SyntheticCorpus();
    items = Array.from({ length: numberArg('docs', 10000) }, (_, i) => corpus.item(i, 1200));
    questions = Array.from({ length: queries }, () => corpus.question());
  }
  console.log(`search spans: ${kind}, ${items.length} items, ${questions.length} questions; ${mode}; ${machine()}`);
  const service = await startService(mode);
  try {
    const api = await projectHolding(service, items, questions, 30);
    const read = async () => {
      const metricsText = await gatewayMetrics(service);
      const retrievalPort = service.opsPorts.get('retrieval')?.[0];
      const retrievalText = retrievalPort ? await (await fetch(`http://127.0.0.1:${retrievalPort}/metrics`)).text() : metricsText;
      return {
        http: histogram(metricsText, 'askdata_http_request_duration_seconds', /route="\/v1\/search"/),
        bus: histogram(metricsText, 'askdata_bus_request_duration_seconds', /subject="[^"]*retrieval\.search[^"]*".*outcome="ok"/),
        index: histogram(retrievalText, 'askdata_retrieval_duration_seconds', /backend="postgres"/),
      };
    };
    const appPids = [...service.processes].map(([app, ps]) => [app, ps.map((p) => p.pid!)] as const);
    const before = await read();
    const appCpu0 = appPids.map(([, ps]) => cpuMs(ps));
    const client: number[] = [];
    if (process.env.BENCH_SPANS_CLOCK) console.error(`search phase from ${process.hrtime.bigint() / 1000n} µs`);
    for (const q of questions) {
      const t = performance.now();
      await api.call('POST', '/search', { text: q, limit: 10 });
      client.push(performance.now() - t);
    }
    // CPU a search of each app's processes, and of all of them.
    const perApp = appPids.map(([app, ps], i) => [app, (cpuMs(ps) - appCpu0[i]) / questions.length] as const);
    if (process.env.BENCH_SPANS_CLOCK) console.error(`search phase to ${process.hrtime.bigint() / 1000n} µs`);
    const cpu = perApp.reduce((sum, [, ms]) => sum + ms, 0);
    const appCpu = perApp.map(([app, ms]) => `${app} ${ms.toFixed(2)}`).join(', ');
    const after = await read();
    const list: number[] = [];
    for (let i = 0; i < questions.length; i++) {
      const t = performance.now();
      await api.call('GET', '/items?per_page=10');
      list.push(performance.now() - t);
    }
    client.sort((a, b) => a - b);
    list.sort((a, b) => a - b);
    const mean = (k: 'http' | 'bus' | 'index') => ((after[k].sum - before[k].sum) / Math.max(1, after[k].count - before[k].count)) * 1000;
    const clientMean = client.reduce((s, v) => s + v, 0) / client.length;
    console.log('| span (mean over the questions) | ms |');
    console.log('|---|---|');
    console.log(`| client: POST /v1/search, top 10 (p50 ${percentile(client, 50).toFixed(2)}) | ${clientMean.toFixed(2)} |`);
    console.log(`| gateway: the HTTP request, from its arrival to its answer | ${mean('http').toFixed(2)} |`);
    console.log(`| gateway: the bus request to retrieval | ${mean('bus').toFixed(2)} |`);
    console.log(`| retrieval: the index search (statement, rows to hits, snippets) | ${mean('index').toFixed(2)} |`);
    console.log(`| service: CPU time per search, every process and thread | ${cpu.toFixed(2)} |`);
    if (appPids.length > 1) console.log(`| service: CPU time per search by app (${appCpu}) | |`);
    console.log(`| client: GET /v1/items from the gateway's memory, p50 | ${percentile(list, 50).toFixed(2)} |`);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
