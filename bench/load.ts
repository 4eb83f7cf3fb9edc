import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client } from 'pg';
import { listArg, numberArg } from './lib/args';
import { benchBus } from './lib/private-infra';
import { Api, machine, modeFromArgs, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * Load on the gateway with autocannon: GET /v1/items (a page of the list), GET /v1/items?page=N (every page in turn),
 * POST /v1/query (extractive answer) and POST /v1/upserts (a batch of 10 new items) at rising concurrency, each for a
 * fixed time; prints throughput, latency percentiles and errors per level, and the level where latency bends
 * (throughput stops growing). Each route is warmed up for 3 s first; upserts run last, since their background
 * processing loads the machine.
 *   node dist/bench/load.js [--distributed [--private-nats]] [--routes items,pages,query,upserts] [--levels 1,4,16,64]
 *                           [--seconds 10] [--items 2000] [--per-page N]
 * Items are ~600 bytes of prose; the list is the API's default page (15 items) unless --per-page says otherwise; the
 * service runs with the rate limit off. The gateway keeps list answers until catalog announces a change; run with
 * LIST_CACHE_TTL_MS=0 in the environment to measure every list computed.
 */

interface Route {
  name: string;
  label: string;
  request: () => autocannon.Request;
}

interface Level {
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statuses: string;
}

const GOAL = { routes: ['items', 'pages'], rps: 2000, p99: 50 };

function routes(corpus: SyntheticCorpus, perPage: number, itemCount: number): Route[] {
  const questions = Array.from({ length: 500 }, () => corpus.question());
  const texts = Array.from({ length: 500 }, () => corpus.text(600));
  const page = perPage ? `?per_page=${perPage}` : '';
  const pages = Math.max(1, Math.ceil(itemCount / (perPage || 15)));
  let p = 0;
  let q = 0;
  let u = 0;
  return [
    { name: 'items', label: `GET /v1/items${page}`, request: () => ({ method: 'GET', path: `/v1/items${page}` }) },
    {
      name: 'pages',
      label: `GET /v1/items?page=1..${pages}`,
      request: () => ({ method: 'GET', path: `/v1/items?page=${(p++ % pages) + 1}${perPage ? `&per_page=${perPage}` : ''}` }),
    },
    {
      name: 'query',
      label: 'POST /v1/query (extractive)',
      request: () => ({ method: 'POST', path: '/v1/query', body: JSON.stringify({ text: questions[q++ % questions.length] }) }),
    },
    {
      name: 'upserts',
      label: 'POST /v1/upserts (10 items)',
      request: () => {
        const n = u++;
        const items = Array.from({ length: 10 }, (_, i) => ({ id: `load-${n}-${i}`, data: { title: `Load ${n}.${i}`, text: texts[(n * 10 + i) % texts.length] } }));
        return { method: 'POST', path: '/v1/upserts', body: JSON.stringify({ items }) };
      },
    },
  ];
}

async function measure(url: string, key: string, route: Route, connections: number, seconds: number): Promise<Level> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 30,
    headers: { 'Api-Key': key, 'Content-Type': 'application/json' },
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...route.request() }) }],
  });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, s]) => `${code}:${s.count ?? 0}`)
    .join(' ');
  return {
    connections,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statuses,
  };
}

/**
 * Where latency bends: the lowest concurrency that already reaches 90% of the best throughput measured; past it,
 * more connections mostly queue (latency grows, throughput does not).
 */
function bend(levels: Level[]): string {
  const best = levels.reduce((a, b) => (b.rps > a.rps ? b : a));
  const knee = levels.find((l) => l.rps >= 0.9 * best.rps) ?? best;
  const last = levels[levels.length - 1];
  if (knee === last) return `still scaling at ${last.connections} connections (${last.rps.toFixed(0)} req/s, p99 ${last.p99} ms)`;
  return (
    `bends at ${knee.connections} connections: ${knee.rps.toFixed(0)} req/s with p99 ${knee.p99} ms; ` +
    `at ${last.connections} connections ${last.rps.toFixed(0)} req/s with p99 ${last.p99} ms`
  );
}

/**
 * After loading: PostgreSQL's planner statistics brought up to date (what autovacuum does within a minute or so;
 * right after a bulk load, stale statistics can pick a plan that reads every item of the project), then a pause.
 */
async function settle(databaseUrl: string | null): Promise<void> {
  if (databaseUrl) {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    await db.query('ANALYZE').finally(() => db.end());
  }
  await new Promise((r) => setTimeout(r, 3000));
}

/**
 * What this machine can do at all: a bare Node HTTP server (its own process, no framework, no database) answering
 * every request with the body the service gave for the list, driven the same way. The service cannot go faster.
 */
async function ceiling(body: string, connections: number, seconds: number): Promise<number> {
  const server = spawn(
    process.execPath,
    [
      '-e',
      `const b = process.env.BODY; require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end(b); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
    ],
    { env: { ...process.env, BODY: body }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(server.stdout, 'data')) as [Buffer];
    const result = await autocannon({ url: `http://127.0.0.1:${line.toString().trim()}`, connections, duration: seconds });
    return result.requests.average;
  } finally {
    server.kill();
  }
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const levels = listArg('levels', ['1', '4', '16', '64']).map(Number);
  const seconds = numberArg('seconds', 10);
  const itemCount = numberArg('items', 2000);
  const perPage = numberArg('per-page', 0);
  const wanted = listArg('routes', ['items', 'pages', 'query', 'upserts']);
  const corpus = new SyntheticCorpus();
  const selected = routes(corpus, perPage, itemCount).filter((r) => wanted.includes(r.name));
  const cache = process.env.LIST_CACHE_TTL_MS === '0' || process.env.LIST_CACHE_MAX_BYTES === '0' ? 'off' : 'on';
  console.log(`load: ${mode}; ${itemCount} items of ~600 bytes; levels ${levels.join(', ')} connections, ${seconds} s each; list cache ${cache}; ${machine()}`);

  const bus = await benchBus(mode === 'distributed');
  const service = await startService(mode, {}, 0, { natsUrl: bus.natsUrl });
  try {
    const api = await Api.withProject(service);
    await api.upsertAll(
      Array.from({ length: itemCount }, (_, i) => corpus.item(i, 600)),
      { batch: 500, parallel: 2 },
    );
    await settle(service.databaseUrl);
    if (selected.some((r) => r.name === 'items' || r.name === 'pages')) {
      const page = await fetch(`${service.url}/v1/items${perPage ? `?per_page=${perPage}` : ''}`, { headers: { 'Api-Key': api.key } });
      const body = await page.text();
      const rps = await ceiling(body, 16, Math.min(5, seconds));
      console.log(`machine ceiling: a bare Node HTTP server answering the same ${body.length}-byte page, 16 connections: ${rps.toFixed(0)} req/s`);
    }
    console.log(`| route | connections | req/s | p50 ms | p99 ms | max ms | errors | timeouts | non-2xx | statuses |`);
    console.log(`|---|---|---|---|---|---|---|---|---|---|`);
    const bends: string[] = [];
    for (const route of selected) {
      await measure(service.url, api.key, route, levels[0], Math.min(3, seconds)); // warm-up
      const results: Level[] = [];
      for (const connections of levels) {
        const r = await measure(service.url, api.key, route, connections, seconds);
        results.push(r);
        console.log(`| ${route.label} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.max} | ${r.errors} | ${r.timeouts} | ${r.non2xx} | ${r.statuses} |`);
      }
      bends.push(`${route.label}: ${bend(results)}`);
      if (GOAL.routes.includes(route.name)) {
        const best = results.filter((r) => r.p99 <= GOAL.p99 && r.errors === 0 && r.non2xx === 0).sort((a, b) => b.rps - a.rps)[0];
        bends.push(
          best && best.rps >= GOAL.rps
            ? `${route.label}: goal (>= ${GOAL.rps} req/s, p99 <= ${GOAL.p99} ms, no errors) met: ${best.rps.toFixed(0)} req/s at ${best.connections} connections`
            : `${route.label}: goal (>= ${GOAL.rps} req/s, p99 <= ${GOAL.p99} ms, no errors) not met; best within p99 and errors: ${best ? `${best.rps.toFixed(0)} req/s at ${best.connections} connections` : 'none'}`,
        );
      }
      if (route.name === 'upserts') {
        const { meta } = await api.call<{ meta: { total: number } }>('GET', '/upserts?status=queued&per_page=1');
        bends.push(`upserts still queued after the run (processed in the background): ${meta.total}`);
      }
    }
    console.log('');
    for (const line of bends) console.log(`- ${line}`);
  } finally {
    await service.stop();
    await bus.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
