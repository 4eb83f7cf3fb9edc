import { listArg, numberArg } from './lib/args';
import { benchBus } from './lib/private-infra';
import { Api, backgroundSettled, machine, modeFromArgs, percentile, Running, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';
import { Client } from 'pg';

/**
 * Reads while ingestion runs: GET /v1/items, POST /v1/search and POST /v1/query (extractive) of two projects, the
 * one being loaded and another, measured with no load and then while a large load (`--load` items, default 20,000,
 * in upserts of 500 sent as fast as they are accepted) is ingested into the first; prints p50, p99, max and the
 * statuses of each read in both phases, and whether the goal holds: p99 under load at most twice p99 without, and
 * no 5xx.
 *   node dist/bench/reads-under-load.js [--distributed [--private-nats]] [--load 20000] [--seed-items 2000]
 *                                       [--readers 2] [--pause-ms 20] [--idle-seconds 20]
 * Each reader sends one read at a time, taking the six reads (3 routes x 2 projects) in turn, and pauses
 * `--pause-ms` between reads. Items are ~600 bytes of prose; the rate limit is off. Also printed per process: CPU,
 * event loop delay, the database connections' waits and holds by lane (reads, bulk work), the bus requests it sent
 * by subject; and, distributed, what PostgreSQL's sessions were doing (working or waiting, and for what) by service.
 */

type Route = 'items' | 'search' | 'query';
const ROUTES: Route[] = ['items', 'search', 'query'];

interface Sample {
  route: Route;
  project: 'loaded' | 'other';
  ms: number;
  status: number;
  /** When the read began (performance.now()). */
  at: number;
}

async function read(api: Api, route: Route, question: string, page: number): Promise<{ ms: number; status: number }> {
  const t = performance.now();
  const init: RequestInit = route === 'items' ? { method: 'GET' } : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: question }) };
  const path = route === 'items' ? `/v1/items?page=${page}` : `/v1/${route}`;
  const res = await fetch(`${api.url}${path}`, { ...init, headers: { ...(init.headers ?? {}), 'Api-Key': api.key } }).catch(() => null);
  if (res) await res.arrayBuffer();
  return { ms: performance.now() - t, status: res?.status ?? 0 };
}

/** Readers sending the reads in turn until `until` resolves. */
async function readWhile(apis: { loaded: Api; other: Api }, questions: string[], readers: number, pauseMs: number, until: Promise<unknown>): Promise<Sample[]> {
  let done = false;
  void until.finally(() => (done = true));
  const samples: Sample[] = [];
  let n = 0;
  const reader = async () => {
    while (!done) {
      const i = n++;
      const route = ROUTES[i % 3];
      const project = Math.floor(i / 3) % 2 === 0 ? 'loaded' : 'other';
      const at = performance.now();
      const r = await read(apis[project], route, questions[i % questions.length], 1 + (Math.floor(i / 6) % 5));
      samples.push({ route, project, ...r, at });
      if (pauseMs) await new Promise((ok) => setTimeout(ok, pauseMs));
    }
  };
  await Promise.all(Array.from({ length: readers }, reader));
  return samples;
}

/**
 * A histogram's cumulative bucket counts and sum per value of one label (lane, subject), from a /metrics text:
 * value -> [upper bound, count][] and the sum of what was observed.
 */
type Buckets = Map<string, { buckets: Array<[number, number]>; sum: number }>;

function histogram(text: string, name: string, label = 'lane'): Buckets {
  const out: Buckets = new Map();
  const key = (labels: string) => new RegExp(`${label}="([^"]+)"`).exec(labels)?.[1] ?? '';
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm'))) {
    const le = /le="([^"]+)"/.exec(m[1])?.[1] ?? '';
    const h = out.get(key(m[1])) ?? { buckets: [], sum: 0 };
    // Series of other labels (a bus request's outcome) add up.
    const bound = le === '+Inf' ? Infinity : Number(le);
    const at = h.buckets.find(([b]) => b === bound);
    if (at) at[1] += Number(m[2]);
    else h.buckets.push([bound, Number(m[2])]);
    out.set(key(m[1]), h);
  }
  for (const m of text.matchAll(new RegExp(`^${name}_sum\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm'))) {
    const h = out.get(key(m[1]));
    if (h) h.sum += Number(m[2]);
  }
  return out;
}

/** Per label value, what happened between two readings: count, mean and the bucket bound holding the 99th percentile. */
function between(before: Buckets, after: Buckets): Map<string, { n: number; p99: number; mean: number }> {
  const out = new Map<string, { n: number; p99: number; mean: number }>();
  for (const [value, { buckets, sum }] of after) {
    const was = before.get(value);
    const wasCounts = new Map(was?.buckets ?? []);
    const counts = buckets.map(([le, c]) => [le, c - (wasCounts.get(le) ?? 0)] as const);
    const n = counts[counts.length - 1]?.[1] ?? 0;
    out.set(value, { n, p99: counts.find(([, c]) => c >= n * 0.99)?.[0] ?? NaN, mean: (sum - (was?.sum ?? 0)) / n });
  }
  return out;
}

interface Probe {
  cpu: number;
  lagP99: number;
  lagMax: number;
  /** Database connections by lane: waits for one, and how long one was held, between the first and last scrape. */
  wait: Map<string, { n: number; p99: number; mean: number }>;
  held: Map<string, { n: number; p99: number; mean: number }>;
  /** Bus requests the process sent, by subject (their latency as the caller saw it), and searches inside retrieval. */
  bus: Map<string, { n: number; p99: number; mean: number }>;
  search: Map<string, { n: number; p99: number; mean: number }>;
}

const WAIT = 'askdata_db_connection_wait_seconds';
const HELD = 'askdata_db_connection_held_seconds';
const BUS = 'askdata_bus_request_duration_seconds';
const SEARCH = 'askdata_retrieval_duration_seconds';

/**
 * Where the time goes, per process: CPU seconds used and the event loop's delay (prom-client's figures, which
 * restart at each scrape), read from every process's /metrics once a second while `until` runs, and the database
 * connections' waits and holds by lane.
 */
async function probe(service: Running, until: Promise<unknown>): Promise<Map<string, Probe>> {
  const ports = [...service.opsPorts].flatMap(([app, ps]) => ps.map((port) => [app, port] as const));
  const targets = ports.length ? ports : ([['standalone', Number(new URL(service.url).port)]] as const);
  const scrape = async (port: number) => {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`)
      .then((r) => r.text())
      .catch(() => '');
    const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
    return {
      cpu: value('process_cpu_seconds_total'),
      lagP99: value('nodejs_eventloop_lag_p99_seconds'),
      lagMax: value('nodejs_eventloop_lag_max_seconds'),
      wait: histogram(text, WAIT),
      held: histogram(text, HELD),
      bus: histogram(text, BUS, 'subject'),
      search: histogram(text, SEARCH, 'backend'),
    };
  };
  let done = false;
  void until.finally(() => (done = true));
  const first = await Promise.all(targets.map(([, port]) => scrape(port)));
  const t0 = performance.now();
  const lags = targets.map(() => ({ p99: [] as number[], max: 0 }));
  let last = first;
  while (!done) {
    await new Promise((ok) => setTimeout(ok, 1000));
    last = await Promise.all(targets.map(([, port]) => scrape(port)));
    last.forEach((m, i) => {
      if (Number.isFinite(m.lagP99)) lags[i].p99.push(m.lagP99 * 1000);
      if (Number.isFinite(m.lagMax)) lags[i].max = Math.max(lags[i].max, m.lagMax * 1000);
    });
  }
  const seconds = (performance.now() - t0) / 1000;
  return new Map(
    targets.map(([app], i) => [
      app,
      {
        cpu: (last[i].cpu - first[i].cpu) / seconds,
        lagP99: percentile(
          lags[i].p99.sort((a, b) => a - b),
          50,
        ),
        lagMax: lags[i].max,
        wait: between(first[i].wait, last[i].wait),
        held: between(first[i].held, last[i].held),
        bus: between(first[i].bus, last[i].bus),
        search: between(first[i].search, last[i].search),
      },
    ]),
  );
}

/**
 * What the run database's sessions were doing, sampled every 20 ms from pg_stat_activity while `until` runs: per
 * service (its application name), state and wait (CPU: not waiting) and statement beginning, the share of samples
 * it was seen in.
 */
async function pgActivity(databaseUrl: string, until: Promise<unknown>): Promise<Map<string, number>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  let done = false;
  void until.finally(() => (done = true));
  const seen = new Map<string, number>();
  let samples = 0;
  try {
    while (!done) {
      const { rows } = await client.query<{ app: string; state: string; wait: string; statement: string }>(
        `SELECT application_name AS app, state, COALESCE(wait_event_type || ':' || wait_event, 'CPU') AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 45) AS statement
         FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()`,
      );
      samples++;
      for (const r of rows) {
        const key = `${r.app.replace(/^askdata-/, '')} | ${r.state === 'active' ? r.wait : `${r.state} (${r.wait})`} | \`${r.statement}\``;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      await new Promise((ok) => setTimeout(ok, 20));
    }
  } finally {
    await client.end();
  }
  return new Map([...seen].map(([key, n]) => [key, n / samples]));
}

interface Figures {
  n: number;
  p50: number;
  p99: number;
  max: number;
  statuses: string;
  failed: number;
}

function figures(samples: Sample[]): Figures {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const counts = new Map<number, number>();
  for (const s of samples) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return {
    n: samples.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms[ms.length - 1] ?? NaN,
    statuses: [...counts]
      .sort(([a], [b]) => a - b)
      .map(([c, k]) => `${c}:${k}`)
      .join(' '),
    failed: samples.filter((s) => s.status === 0 || s.status >= 500).length,
  };
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const load = numberArg('load', 20000);
  const seedItems = numberArg('seed-items', 2000);
  const readers = numberArg('readers', 2);
  const pauseMs = numberArg('pause-ms', 20);
  const idleSeconds = numberArg('idle-seconds', 20);
  const extra = Object.fromEntries(listArg('env', []).map((kv) => kv.split('=') as [string, string]));
  console.log(
    `reads under load: ${mode}; ${load} items loaded (upserts of 500) into a project holding ${seedItems}, another project holding ${seedItems}; ` +
      `${readers} readers, ${pauseMs} ms between reads; ${machine()}${Object.keys(extra).length ? `; ${listArg('env', []).join(' ')}` : ''}`,
  );
  const corpus = new SyntheticCorpus();
  const bus = await benchBus(mode === 'distributed');
  const service = await startService(mode, extra, 0, { natsUrl: bus.natsUrl });
  try {
    const apis = { loaded: await Api.withProject(service), other: await Api.withProject(service) };
    for (const api of [apis.loaded, apis.other]) {
      await api.upsertAll(
        Array.from({ length: seedItems }, (_, i) => corpus.item(i, 600)),
        { batch: 500, parallel: 2 },
      );
    }
    // Nothing else running: the service's work on the seed (block merges, vacuum) is over first.
    await backgroundSettled(service, 6000);
    const questions = Array.from({ length: 500 }, () => corpus.question());
    // Warm-up, then the reads with nothing else running.
    await readWhile(apis, questions, readers, pauseMs, new Promise((ok) => setTimeout(ok, 3000)));
    const idleEnd = new Promise((ok) => setTimeout(ok, idleSeconds * 1000));
    const activity = (until: Promise<unknown>) => (service.databaseUrl ? pgActivity(service.databaseUrl, until) : Promise.resolve(new Map<string, number>()));
    const [idle, idleProbe, idleActivity] = await Promise.all([readWhile(apis, questions, readers, pauseMs, idleEnd), probe(service, idleEnd), activity(idleEnd)]);

    const items = Array.from({ length: load }, (_, i) => corpus.item(seedItems + i, 600));
    const t0 = performance.now();
    let accepted = 0;
    const loading = apis.loaded.upsertAll(items, { batch: 500, parallel: 2, accepted: () => (accepted = performance.now() - t0) });
    const [busy, busyProbe, busyActivity] = await Promise.all([readWhile(apis, questions, readers, pauseMs, loading), probe(service, loading), activity(loading)]);
    await loading;
    const seconds = (performance.now() - t0) / 1000;
    console.log(`load: ${load} items accepted in ${(accepted / 1000).toFixed(1)} s, all completed in ${seconds.toFixed(1)} s (${(load / seconds).toFixed(0)} items/s)`);

    console.log('| read | project | phase | reads | p50 ms | p99 ms | max ms | statuses |');
    console.log('|---|---|---|---|---|---|---|---|');
    const verdicts: string[] = [];
    for (const route of ROUTES) {
      for (const project of ['loaded', 'other'] as const) {
        const pick = (s: Sample[]) => s.filter((x) => x.route === route && x.project === project);
        const a = figures(pick(idle));
        const b = figures(pick(busy));
        const label = route === 'items' ? 'GET /v1/items' : `POST /v1/${route}`;
        for (const [phase, f] of [
          ['no load', a],
          ['under load', b],
        ] as const) {
          console.log(`| ${label} | ${project} | ${phase} | ${f.n} | ${f.p50.toFixed(1)} | ${f.p99.toFixed(1)} | ${f.max.toFixed(1)} | ${f.statuses} |`);
        }
        const ratio = b.p99 / a.p99;
        const ok = ratio <= 2 && a.failed === 0 && b.failed === 0;
        verdicts.push(`${label} (${project}): p99 ${ratio.toFixed(2)}x, ${b.failed} failed under load: ${ok ? 'goal met' : 'goal NOT met'}`);
      }
    }
    console.log('');
    for (const v of verdicts) console.log(`- ${v}`);
    // The gateway validates and ingestion stores the upserts while they are accepted; then only their processing runs.
    console.log('');
    console.log('| read | project | under load: reads begun while upserts were accepted, p99 ms (reads) | begun after, p99 ms (reads) |');
    console.log('|---|---|---|---|');
    for (const route of ROUTES) {
      for (const project of ['loaded', 'other'] as const) {
        const mine = busy.filter((x) => x.route === route && x.project === project);
        const [during, after] = [figures(mine.filter((x) => x.at - t0 < accepted)), figures(mine.filter((x) => x.at - t0 >= accepted))];
        const label = route === 'items' ? 'GET /v1/items' : `POST /v1/${route}`;
        console.log(`| ${label} | ${project} | ${during.p99.toFixed(1)} (${during.n}) | ${after.p99.toFixed(1)} (${after.n}) |`);
      }
    }
    console.log('');
    console.log('| process | CPU no load | CPU under load | event loop delay p99 (median of 1 s windows) no load / under load, ms | worst delay no load / under load, ms |');
    console.log('|---|---|---|---|---|');
    for (const [app, a] of idleProbe) {
      const b = busyProbe.get(app)!;
      console.log(
        `| ${app} | ${(a.cpu * 100).toFixed(0)}% | ${(b.cpu * 100).toFixed(0)}% | ${a.lagP99.toFixed(1)} / ${b.lagP99.toFixed(1)} | ${a.lagMax.toFixed(0)} / ${b.lagMax.toFixed(0)} |`,
      );
    }
    console.log('');
    console.log('| process | connection lane | phase | connections | waited p99 ms (bucket bound) | held p99 ms (bucket bound) |');
    console.log('|---|---|---|---|---|---|');
    for (const [app, a] of idleProbe) {
      const b = busyProbe.get(app)!;
      for (const lane of ['read', 'background']) {
        for (const [phase, p] of [
          ['no load', a],
          ['under load', b],
        ] as const) {
          const w = p.wait.get(lane);
          const h = p.held.get(lane);
          if (w?.n) console.log(`| ${app} | ${lane} | ${phase} | ${w.n} | ${(w.p99 * 1000).toFixed(0)} | ${((h?.p99 ?? NaN) * 1000).toFixed(0)} |`);
        }
      }
    }
    console.log('');
    console.log("| process | bus request sent (or retrieval's search inside) | phase | requests | mean ms | p99 ms (bucket bound) |");
    console.log('|---|---|---|---|---|---|');
    for (const [app, a] of idleProbe) {
      const b = busyProbe.get(app)!;
      const rows = (p: Probe) => [...p.bus, ...[...p.search].map(([backend, f]) => [`search inside (${backend})`, f] as const)];
      const names = [...new Set([...rows(a), ...rows(b)].map(([name]) => name))].sort();
      for (const name of names) {
        for (const [phase, p] of [
          ['no load', a],
          ['under load', b],
        ] as const) {
          const f = new Map(rows(p)).get(name);
          if (f?.n) console.log(`| ${app} | ${name} | ${phase} | ${f.n} | ${(f.mean * 1000).toFixed(1)} | ${(f.p99 * 1000).toFixed(0)} |`);
        }
      }
    }
    if (busyActivity.size) {
      console.log('');
      console.log('| service | PostgreSQL session: working (CPU) or waiting (for what) | statement | share of samples, no load | under load |');
      console.log('|---|---|---|---|---|');
      const keys = [...new Set([...idleActivity.keys(), ...busyActivity.keys()])].sort((a, b) => (busyActivity.get(b) ?? 0) - (busyActivity.get(a) ?? 0));
      for (const key of keys.slice(0, 25)) {
        const share = (m: Map<string, number>) => `${((m.get(key) ?? 0) * 100).toFixed(1)}%`;
        console.log(`| ${key} | ${share(idleActivity)} | ${share(busyActivity)} |`);
      }
    }
  } finally {
    await service.stop();
    await bus.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
