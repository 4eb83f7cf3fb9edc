import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort } from './private-infra';
import { repoRoot } from './root';
import { Client } from 'pg';

/**
 * Starts the built service for a benchmark: standalone (one process, embedded database) or distributed (five
 * processes over NATS and a fresh PostgreSQL database: the local ones, or those named by NATS_URL and PG_URL or
 * by the `infra` argument), and gives back its URL and an API key.
 */
export interface Running {
  url: string;
  adminToken: string;
  databaseUrl: string | null;
  /** Standalone mode: the data directory of the embedded database (removed by `stop`). */
  dataDir: string | null;
  /** The processes of each app (standalone mode: the one process, as `standalone`). */
  processes: Map<string, ChildProcess[]>;
  /** Distributed mode: the health and metrics port of each process of each app (the gateway's is `url`). */
  opsPorts: Map<string, number[]>;
  /** Distributed mode: starts one more process of an app; its health and metrics are on the returned port. */
  spawnApp(app: string, env?: Record<string, string>): { process: ChildProcess; opsPort: number };
  stop(): Promise<void>;
}

const ROOT = repoRoot();

/**
 * The NATS subject prefix of services started from this checkout (unless a run sets its own): two checkouts running
 * their distributed suites at once on the machine's NATS server must not answer each other's requests.
 */
export function checkoutPrefix(): string {
  return process.env.NATS_SUBJECT_PREFIX || `test_${createHash('sha256').update(ROOT).digest('hex').slice(0, 10)}`;
}
/**
 * The build to run: the one this benchmark was compiled into (run from source, as tests do: `dist/`), or the output
 * directory of another build named by ASKDATA_DIST.
 */
export function buildDir(): string {
  if (process.env.ASKDATA_DIST) return resolve(ROOT, process.env.ASKDATA_DIST);
  const own = join(__dirname, '..', '..');
  return existsSync(join(own, 'launcher', 'src', 'main.js')) ? own : join(ROOT, 'dist');
}
const LAUNCHER = join(buildDir(), 'launcher', 'src');
const MAIN = join(LAUNCHER, 'main.js');
const ADMIN = 'adm_bench_' + Math.random().toString(36).slice(2);

export type Mode = 'standalone' | 'distributed';

export function modeFromArgs(): Mode {
  return process.argv.includes('--distributed') ? 'distributed' : 'standalone';
}

function waitFor(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((ok, fail) => {
    const poll = () => {
      void fetch(url)
        .then((r) => (r.ok ? ok() : retry()))
        .catch(retry);
    };
    const retry = () => (Date.now() > deadline ? fail(new Error(`${url} not ready`)) : setTimeout(poll, 300));
    poll();
  });
}

export interface Infra {
  /** Distributed mode: the bus (default NATS_URL, else the local NATS). */
  natsUrl?: string;
  /** Distributed mode: where to create the run's database (default PG_URL, else the local PostgreSQL). */
  pgUrl?: string;
  /** Every process's output goes to `<logDir>/<app>.log` (default: stderr only, to the terminal). */
  logDir?: string;
}

/** Databases made by this process so far: each service gets one of its own. */
let databases = 0;
const OPS_SPAN = 10;

/**
 * `port` 0 (the default) takes a free port for the gateway and free ports for the apps' health endpoints; a given
 * port must be free (so that a run never measures somebody else's service); the apps' follow from port + 1.
 */
export async function startService(mode: Mode, extraEnv: Record<string, string> = {}, port = 0, infra: Infra = {}): Promise<Running> {
  // The gateway's port, then the health ports of the other apps and of replicas spawned later (up to ten in all).
  if (port === 0) port = await freePort(OPS_SPAN + 1);
  else if (!(await isFree(port))) throw new Error(`port ${port} is taken: another service is running there`);
  let nextOpsPort = port + 1;
  const procs: ChildProcess[] = [];
  const processes = new Map<string, ChildProcess[]>();
  const opsPorts = new Map<string, number[]>();
  // BENCH_NODE_ARGS: extra Node flags for the service's processes (say `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const launch = (name: string, appArgs: string[], env: NodeJS.ProcessEnv): ChildProcess => {
    const args = [...nodeArgs, ...appArgs];
    if (!infra.logDir) return spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(join(infra.logDir, `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    return child;
  };
  let spawnApp: Running['spawnApp'] = () => {
    throw new Error('spawnApp needs distributed mode');
  };
  const env = { ...process.env, PORT: String(port), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...extraEnv };
  let cleanup = async () => undefined as void;
  let databaseUrl: string | null = null;
  let dataDir: string | null = null;
  if (mode === 'standalone') {
    dataDir = mkdtempSync(join(tmpdir(), 'askdata-bench-'));
    const child = launch('standalone', [MAIN], { ...env, DATA_DIR: dataDir });
    procs.push(child);
    processes.set('standalone', [child]);
    const dir = dataDir;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const name = `askdata_bench_test_${process.pid}_${++databases}`;
    const pgUrl = new URL(infra.pgUrl ?? process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    const adminUrl = pgUrl.toString();
    // A connection per statement: the server may be restarted in between (fault tests).
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    pgUrl.pathname = `/${name}`;
    databaseUrl = pgUrl.toString();
    const natsUrl = infra.natsUrl ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
    const denv = { ...env, DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_SUBJECT_PREFIX: checkoutPrefix(), ...extraEnv };
    await run(process.execPath, [join(LAUNCHER, 'migrate.js')], denv);
    spawnApp = (app, more = {}) => {
      const opsPort = nextOpsPort++;
      // A gateway serves its admin API, health and metrics on its one port here, as standalone mode does.
      const own = app === 'gateway' ? { ADMIN_PORT: more.PORT ?? String(port) } : { HEALTH_PORT: String(opsPort) };
      const child = launch(app, [MAIN, app], { ...denv, ...own, ...more });
      procs.push(child);
      processes.set(app, [...(processes.get(app) ?? []), child]);
      opsPorts.set(app, [...(opsPorts.get(app) ?? []), app === 'gateway' ? port : opsPort]);
      return { process: child, opsPort };
    };
    for (const app of ['catalog', 'retrieval', 'ingestion', 'conversation', 'gateway']) spawnApp(app);
    cleanup = async () => {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    };
  }
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(null) : p.once('exit', r)))));
    await cleanup();
  };
  try {
    await waitFor(`${url}/health`, 120000);
  } catch (e) {
    const dead = [...processes].flatMap(([app, ps]) => ps.filter((p) => p.exitCode !== null).map((p) => `${app} exited with ${p.exitCode}`));
    await stop();
    throw new Error(`${(e as Error).message}${dead.length ? ` (${dead.join(', ')})` : ''}`);
  }
  return { url, adminToken: ADMIN, databaseUrl, dataDir, processes, opsPorts, spawnApp, stop };
}

function isFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const server = createServer();
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

/** One statement on its own connection (the server may have been restarted since the last one): its rows. */
export async function adminQuery<T = unknown>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((ok, fail) => {
    const p = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    p.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/**
 * Connections kept open between a benchmark's requests, as a client of the service would; one idle for 4 s is closed
 * here before the gateway closes it (HTTP_KEEP_ALIVE_TIMEOUT_MS, 5 s), so no request goes out on a closing connection.
 */
const KEPT_ALIVE = new Agent({ keepAlive: true, timeout: 4000 });

/** A client of the public API with one project's key. */
export class Api {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  static async withProject(service: Running, tenancy: 'single' | 'multi' = 'single'): Promise<Api> {
    const admin = (path: string, body: unknown) =>
      fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${service.adminToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ data: { id: string; key: string } }>);
    const project = await admin('/admin/projects', { name: `bench-${Date.now()}`, tenancy });
    const key = await admin(`/admin/projects/${project.data.id}/keys`, { name: 'bench' });
    return new Api(service.url, key.data.key);
  }

  /**
   * One request through node:http on kept-alive connections: what a lean client spends, where `fetch` added 0.2 to
   * 0.4 ms of its own to each of SciFact's searches here. Gives up after five minutes without a byte, as `fetch` does.
   */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const payload = body ? JSON.stringify(body) : undefined;
    const headers: Record<string, string | number> = { 'Api-Key': this.key };
    if (payload !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
    return new Promise<T>((ok, fail) => {
      const req = request(`${this.url}/v1${path}`, { method, headers, agent: KEPT_ALIVE }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('error', fail);
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return fail(new Error(`${method} ${path}: ${status} ${text}`));
          try {
            ok(JSON.parse(text) as T);
          } catch {
            fail(new Error(`${method} ${path}: ${status}, not JSON: ${text.slice(0, 200)}`));
          }
        });
      });
      req.on('error', fail);
      req.setTimeout(300_000, () => req.destroy(new Error(`${method} ${path}: no answer within five minutes`)));
      req.end(payload);
    });
  }

  /**
   * Upserts the items in batches, `parallel` requests at a time (`accepted` is called once the last is accepted), then
   * waits until every upsert is completed. Returns the upsert ids.
   */
  async upsertAll(items: unknown[], opts: { batch?: number; collection?: unknown; parallel?: number; accepted?: () => void } = {}): Promise<string[]> {
    const batch = opts.batch ?? 500;
    const ids: string[] = [];
    const batches: unknown[][] = [];
    for (let i = 0; i < items.length; i += batch) batches.push(items.slice(i, i + batch));
    const parallel = opts.parallel ?? 4;
    for (let i = 0; i < batches.length; i += parallel) {
      const receipts = await Promise.all(
        batches
          .slice(i, i + parallel)
          .map((b) => this.call<{ data: { id: string } }>('POST', '/upserts', { items: b, ...(opts.collection ? { collection: opts.collection } : {}) })),
      );
      ids.push(...receipts.map((r) => r.data.id));
    }
    opts.accepted?.();
    await this.waitCompleted(ids);
    return ids;
  }

  async waitCompleted(ids: string[], timeoutMs = 30 * 60 * 1000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const pending = new Set(ids);
    while (pending.size) {
      for (const id of [...pending]) {
        // A 503 (the ingestion service restarting) is retried, as a client would.
        const res = await this.call<{ data: { status: string; error: string | null } }>('GET', `/upserts/${id}`).catch((e: Error) => {
          if (/: 503 /.test(e.message)) return null;
          throw e;
        });
        if (!res) break;
        const { data } = res;
        if (data.status === 'completed') pending.delete(id);
        else if (data.status === 'failed') throw new Error(`upsert ${id} failed: ${data.error}`);
        else break;
      }
      if (pending.size) {
        if (Date.now() > deadline) throw new Error(`${pending.size} upserts not completed in time`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

/**
 * Searches until retrieval scores them in memory (its first search loads the index in the background; answered in SQL
 * meanwhile) and the index's rows have been read ahead, printing how long each took. Builds without them: no wait.
 */
export async function heldInMemory(service: Running, api: Api, text: string): Promise<void> {
  // The first search loads the index into retrieval's memory (searches are answered in SQL meanwhile).
  const t = performance.now();
  const metrics = () => retrievalMetrics(service);
  const count = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].reduce((s, m) => s + Number(m[1]), 0);
  const memory = /^askdata_search_memory_total\{scored="memory"\} (\d+)/gm;
  // Then its rows are read ahead (all of them when they fit; builds before: no such metric, nothing to wait for).
  const readAhead = /^askdata_search_rows_read_ahead_total\{[^}]*\} (\d+)/gm;
  const first = await metrics();
  // A build without indexes in memory, or with them turned off: nothing to wait for.
  if (!first.includes('askdata_search_memory_total') || process.env.SEARCH_MEMORY_MB === '0') return;
  const before = count(first, memory);
  const aheadBefore = count(first, readAhead);
  let scored = false;
  while (performance.now() - t < 600_000) {
    await api.call('POST', '/search', { text, limit: 10 });
    const now = await metrics();
    if (!scored && count(now, memory) > before) {
      scored = true;
      console.log(`  askdata: searches scored in memory ${((performance.now() - t) / 1000).toFixed(1)} s after the first`);
    }
    if (scored && (!now.includes('askdata_search_rows_read_ahead_total') || count(now, readAhead) > aheadBefore)) {
      if (now.includes('askdata_search_rows_read_ahead_total'))
        console.log(
          `  askdata: rows read ahead ${((performance.now() - t) / 1000).toFixed(1)} s after the first search (${/^askdata_search_rows_read_ahead_total\{outcome="(\w+)"\} [1-9]/m.exec(now)?.[1] ?? '?'})`,
        );
      return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`  askdata: ${scored ? 'rows not read ahead' : 'searches still scored in SQL'} after 600 s`);
}

/**
 * A project of the service holding `items`, its index scored in memory (`heldInMemory`, searching `question`), and
 * `warmup` more searches of `questions` made: its API, ready to be measured.
 */
export async function projectHolding(service: Running, items: unknown[], questions: string[], warmup: number): Promise<Api> {
  const api = await Api.withProject(service);
  await api.upsertAll(items);
  // Measured once the load's background work (block merges, vacuums) is over, as bench/peers.ts measures.
  await backgroundSettled(service, 6000);
  await heldInMemory(service, api, questions[0]);
  for (const q of questions.slice(0, warmup)) await api.call('POST', '/search', { text: q, limit: 10 });
  return api;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The number given on the command line as `--<name> N`, else `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The gateway's metrics (standalone: the whole service's), as the Prometheus text its /metrics serves. */
export async function gatewayMetrics(service: Running): Promise<string> {
  return (await fetch(`${service.url}/metrics`, { headers: { Authorization: `Bearer ${service.adminToken}` } })).text();
}

/** Retrieval's metrics, as the Prometheus text its ops port (distributed) or the gateway's /metrics (standalone) serves. */
export async function retrievalMetrics(service: Running): Promise<string> {
  const port = service.opsPorts.get('retrieval')?.[0];
  return port ? (await fetch(`http://127.0.0.1:${port}/metrics`)).text() : gatewayMetrics(service);
}

/**
 * Retrieval's vacuum runs 5 s into a pause in index changes, then may rewrite the posting blocks: background work has
 * settled once nothing has moved for longer than that and a vacuum of a large table.
 */
const STILL_MS = 15000;

/**
 * Waits for retrieval's background work after a load: at least `minMs`, then until no posting block merge runs and
 * merges and index vacuums (their rewrites of the posting blocks too) have stood still for STILL_MS (builds without
 * merges: their counters stay at 0). Returns the merges' counters and the rewrites'.
 */
export async function backgroundSettled(
  service: Running,
  minMs = 12000,
): Promise<{ merged: number; made: number; seconds: number; failed: number; stopped: number; rewrites: number; rewriteSeconds: number }> {
  const read = async () => {
    const text = await retrievalMetrics(service);
    const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((s, m) => s + Number(m[1]), 0);
    return {
      merged: sum(/^askdata_index_block_merges_total\{what="merged"\} (\d+)/gm),
      made: sum(/^askdata_index_block_merges_total\{what="made"\} (\d+)/gm),
      vacuums: sum(/^askdata_index_vacuum_duration_seconds_count\{[^}]*\} (\d+)/gm),
      seconds: sum(/^askdata_index_block_merge_duration_seconds_sum\{[^}]*\} ([\d.]+)/gm),
      running: sum(/^askdata_index_block_merge_running (\d+)/gm),
      failed: sum(/^askdata_index_block_merge_duration_seconds_count\{outcome="failed"\} (\d+)/gm),
      stopped: sum(/^askdata_index_block_merge_duration_seconds_count\{outcome="stopped"\} (\d+)/gm),
      rewrites: sum(/^askdata_index_vacuum_duration_seconds_count\{kind="rewrite",outcome="done"\} (\d+)/gm),
      rewriteSeconds: sum(/^askdata_index_vacuum_duration_seconds_sum\{kind="rewrite",outcome="done"\} ([\d.]+)/gm),
    };
  };
  await new Promise((r) => setTimeout(r, minMs));
  let last = await read();
  let still = Date.now();
  while (Date.now() - still < STILL_MS) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await read();
    if (now.running || now.merged !== last.merged || now.vacuums !== last.vacuums) still = Date.now();
    last = now;
  }
  return last;
}
