/**
 * End-to-end harness: starts the built service (dist/) the way an operator would, and drives it over HTTP the way
 * a client would.
 *
 * - `startService()` runs it standalone (one process, fresh DATA_DIR) or distributed (migrate, then the five apps
 *   over the local NATS and a fresh PostgreSQL database `askdata_e2e_<random>`, dropped afterwards), on free ports,
 *   and waits until GET /health answers 200.
 * - The jest globalSetup starts ONE service for the whole run and publishes it through `ASKDATA_E2E_STATE` (a JSON
 *   file) and `ASKDATA_E2E_URL`/`ASKDATA_E2E_ADMIN_TOKEN`; every test file reads it with `sharedService()` and works
 *   in projects of its own (`createProject`), so files are independent of each other.
 * - `Project` is a typed client bound to one project's API key, with upsert helpers that poll until done.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import type { Receipt, Upsert, UpsertStatus, Collection, Item, User, Source, ChatMessage, Chat, SearchHit, PageMeta, Page, ErrorBody } from '@askdata/client';
import { freePort } from '../../bench/lib/private-infra';
import { checkoutPrefix } from '../../bench/lib/service';

export { freePort };

// ---------------------------------------------------------------------------------------------------------------
// Starting and stopping the service
// ---------------------------------------------------------------------------------------------------------------

export type Mode = 'standalone' | 'distributed';

export const ROOT = resolve(__dirname, '..', '..');
const LAUNCHER = join(ROOT, 'dist', 'launcher', 'src');
export const MAIN = join(LAUNCHER, 'main.js');
const MIGRATE = join(LAUNCHER, 'migrate.js');
export const APPS = ['gateway', 'ingestion', 'catalog', 'retrieval', 'conversation'] as const;

const STANDALONE_READY_MS = 120_000;
const DISTRIBUTED_READY_MS = 180_000;
const STOP_GRACE_MS = 10_000;

export function modeFromEnv(): Mode {
  const mode = process.env.E2E_MODE ?? 'standalone';
  if (mode !== 'standalone' && mode !== 'distributed') throw new Error(`E2E_MODE must be standalone or distributed, not "${mode}"`);
  return mode;
}

/** What a test file needs to reach the service; serialisable so it can cross from globalSetup to the workers. */
export interface ServiceInfo {
  mode: Mode;
  /** http://127.0.0.1:<port>, without /v1: the public port. */
  url: string;
  /** Where /admin, /metrics and /health are: the gateway's ADMIN_PORT in distributed mode, `url` standalone. */
  adminUrl: string;
  adminToken: string;
  /** Distributed mode: the test database (needed to start an extra gateway against it). */
  databaseUrl: string | null;
  natsUrl: string | null;
  /** Standalone mode: the key of project `default` printed on first start. */
  defaultKey: string | null;
  logDir: string;
}

export interface RunningService extends ServiceInfo {
  /** Standalone mode: its DATA_DIR. */
  dataDir?: string;
  /** Everything the processes printed so far. */
  output(): string;
  /** SIGTERM, SIGKILL after a grace period, then cleanup (data dir or test database). Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL at once, synchronously (for process exit). */
  kill(): void;
}

export interface StartOptions {
  mode?: Mode;
  /** Extra settings for every process (e.g. RATE_LIMIT_PER_MINUTE). */
  env?: Record<string, string>;
  adminToken?: string;
}

/** Refuses any database whose name does not say it is a test database. */
export function assertTestDatabaseName(name: string): void {
  if (!/test|e2e/i.test(name)) throw new Error(`refusing to use database "${name}": its name must contain "test" or "e2e"`);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing database name "${name}": only [a-z0-9_] allowed`);
}

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...extra };
  // Answers come from the built-in answerer, not a remote model, unless a run asks otherwise: the suite must be
  // deterministic and must not spend anyone's API credits (a test may point the service at a local stand-in).
  if (!process.env.E2E_KEEP_MODEL_KEY && !('ANTHROPIC_API_KEY' in extra)) delete env.ANTHROPIC_API_KEY;
  for (const k of ['DATA_DIR', 'PORT', 'ADMIN_PORT', 'HEALTH_PORT', 'DATABASE_URL', 'ADMIN_TOKEN', 'TRUST_PROXY']) if (!(k in extra)) delete env[k];
  return env;
}

class Processes {
  readonly children: Array<{ name: string; child: ChildProcess; oneShot: boolean }> = [];
  private readonly logs: WriteStream[] = [];
  private text = '';

  constructor(readonly logDir: string) {}

  /** `oneShot`: a command expected to exit (migrate), not a server whose exit means a crash. */
  spawn(name: string, args: string[], env: NodeJS.ProcessEnv, oneShot = false): ChildProcess {
    const log = createWriteStream(join(this.logDir, `${name}.log`), { flags: 'a' });
    this.logs.push(log);
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => {
      const s = chunk.toString();
      log.write(s);
      this.text += s.replace(/^/gm, `[${name}] `);
      if (this.text.length > 2_000_000) this.text = this.text.slice(-1_000_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.children.push({ name, child, oneShot });
    return child;
  }

  output(): string {
    return this.text;
  }

  tail(lines = 40): string {
    return this.text.split('\n').slice(-lines).join('\n');
  }

  /** A child that already exited (the service crashed while starting). */
  exited(): string | null {
    const dead = this.children.find((c) => !c.oneShot && (c.child.exitCode !== null || c.child.signalCode !== null));
    return dead ? `${dead.name} exited (${dead.child.exitCode ?? dead.child.signalCode})` : null;
  }

  /** SIGTERM, then SIGKILL after a grace period; the logs go too unless E2E_KEEP_LOGS is set. */
  async stop(): Promise<void> {
    await Promise.all(this.children.map(({ child }) => stopChild(child)));
    await Promise.all(this.logs.map((l) => new Promise((ok) => l.end(ok))));
    if (!process.env.E2E_KEEP_LOGS) rmSync(this.logDir, { recursive: true, force: true });
  }

  killNow(): void {
    for (const { child } of this.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  child.kill('SIGTERM');
  const timer = new Promise<'timeout'>((ok) => setTimeout(() => ok('timeout'), STOP_GRACE_MS).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

async function waitUntil(what: string, deadline: number, procs: Processes, ready: () => Promise<boolean>): Promise<void> {
  for (;;) {
    const dead = procs.exited();
    if (dead) throw new Error(`${what}: ${dead} while starting.\n${procs.tail()}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready in time.\n${procs.tail()}`);
    await sleep(250);
  }
}

const healthy = (adminUrl: string) => async () => (await fetch(`${adminUrl}/health`)).status === 200;

function runToEnd(procs: Processes, name: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  const child = procs.spawn(name, args, env, true);
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${name} did not finish in ${timeoutMs} ms.\n${procs.tail()}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) ok();
      else fail(new Error(`${name} exited ${code}.\n${procs.tail()}`));
    });
  });
}

export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const mode = options.mode ?? modeFromEnv();
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  const adminToken = options.adminToken ?? `adm_e2e_${randomBytes(16).toString('hex')}`;
  const logDir = mkdtempSync(join(tmpdir(), 'askdata-e2e-logs-'));
  const procs = new Processes(logDir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const extra = options.env ?? {};

  if (mode === 'standalone') {
    const dataDir = mkdtempSync(join(tmpdir(), 'askdata-e2e-data-'));
    const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
    // One port for everything, unless the run gives the admin paths a port of their own.
    const adminUrl = extra.ADMIN_PORT ? `http://127.0.0.1:${extra.ADMIN_PORT}` : url;
    procs.spawn('standalone', [MAIN], baseEnv({ PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, ...extra }));
    try {
      const deadline = Date.now() + STANDALONE_READY_MS;
      await waitUntil('standalone service', deadline, procs, async () => procs.output().includes(`listening on ${url}`));
      await waitUntil('standalone service /health', deadline, procs, healthy(adminUrl));
    } catch (e) {
      procs.killNow();
      await procs.stop();
      cleanup();
      throw e;
    }
    const key = /API key: (\S+)/.exec(procs.output());
    return {
      mode,
      url,
      adminUrl,
      adminToken,
      databaseUrl: null,
      natsUrl: null,
      defaultKey: key ? key[1] : null,
      dataDir,
      logDir,
      output: () => procs.output(),
      stop: once(async () => {
        await procs.stop();
        cleanup();
      }),
      kill: () => procs.killNow(),
    };
  }

  // Distributed: a fresh database, migrations once, then the five apps.
  const pgAdminUrl = process.env.E2E_PG_URL ?? process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const natsUrl = process.env.E2E_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const dbName = `askdata_e2e_${randomBytes(6).toString('hex')}`;
  assertTestDatabaseName(dbName);
  const databaseUrl = withDatabase(pgAdminUrl, dbName);
  const admin = new Client({ connectionString: pgAdminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dropDatabase = async () => {
    try {
      assertTestDatabaseName(dbName);
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
  const env = (more: Record<string, string>) =>
    baseEnv({ DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_SUBJECT_PREFIX: checkoutPrefix(), ADMIN_TOKEN: adminToken, ...extra, ...more });
  const adminPort = await freePort();
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  try {
    await runToEnd(procs, 'migrate', [MIGRATE], env({}), 120_000);
    for (const app of APPS) {
      const more: Record<string, string> = app === 'gateway' ? { PORT: String(port), ADMIN_PORT: String(adminPort) } : { HEALTH_PORT: String(await freePort()) };
      procs.spawn(app, [MAIN, app], env(more));
    }
    await waitUntil('distributed service /health', Date.now() + DISTRIBUTED_READY_MS, procs, healthy(adminUrl));
  } catch (e) {
    procs.killNow();
    await procs.stop();
    await dropDatabase();
    throw e;
  }
  return {
    mode,
    url,
    adminUrl,
    adminToken,
    databaseUrl,
    natsUrl,
    defaultKey: null,
    logDir,
    output: () => procs.output(),
    stop: once(async () => {
      await procs.stop();
      await dropDatabase();
    }),
    kill: () => procs.killNow(),
  };
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A gateway of its own with other settings (e.g. a low RATE_LIMIT_PER_MINUTE). Standalone: a whole new standalone
 * instance with a fresh DATA_DIR (its project `default` key is in `defaultKey`). Distributed: one more gateway process
 * over the shared test database and bus, so projects created through the shared service work on it too.
 */
export async function startDedicatedGateway(shared: ServiceInfo, env: Record<string, string>): Promise<RunningService> {
  if (shared.mode === 'standalone') return startService({ mode: 'standalone', env });
  if (!shared.databaseUrl || !shared.natsUrl) throw new Error('the shared distributed service has no database URL');
  const logDir = mkdtempSync(join(tmpdir(), 'askdata-e2e-logs-'));
  const procs = new Processes(logDir);
  const port = await freePort();
  const adminPort = env.ADMIN_PORT ?? String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  procs.spawn(
    'gateway-dedicated',
    [MAIN, 'gateway'],
    baseEnv({
      DATABASE_URL: shared.databaseUrl,
      NATS_URL: shared.natsUrl,
      NATS_SUBJECT_PREFIX: checkoutPrefix(),
      ADMIN_TOKEN: shared.adminToken,
      PORT: String(port),
      ...env,
      ADMIN_PORT: adminPort,
    }),
  );
  try {
    await waitUntil('dedicated gateway /health', Date.now() + DISTRIBUTED_READY_MS, procs, healthy(adminUrl));
  } catch (e) {
    procs.killNow();
    await procs.stop();
    throw e;
  }
  return { ...shared, url, adminUrl, defaultKey: null, logDir, output: () => procs.output(), stop: once(() => procs.stop()), kill: () => procs.killNow() };
}

// ---------------------------------------------------------------------------------------------------------------
// Sharing the one service of a run between globalSetup and the test files
// ---------------------------------------------------------------------------------------------------------------

export const STATE_ENV = 'ASKDATA_E2E_STATE';

export function publishService(info: ServiceInfo, file: string): void {
  process.env[STATE_ENV] = file;
  process.env.ASKDATA_E2E_URL = info.url;
  process.env.ASKDATA_E2E_ADMIN_URL = info.adminUrl;
  process.env.ASKDATA_E2E_ADMIN_TOKEN = info.adminToken;
}

let shared: ServiceInfo | undefined;

/** The service started by globalSetup for this run. */
export function sharedService(): ServiceInfo {
  if (shared) return shared;
  const file = process.env[STATE_ENV];
  if (file && existsSync(file)) {
    shared = JSON.parse(readFileSync(file, 'utf8')) as ServiceInfo;
    return shared;
  }
  const url = process.env.ASKDATA_E2E_URL;
  const adminToken = process.env.ASKDATA_E2E_ADMIN_TOKEN;
  if (!url || !adminToken) {
    throw new Error('the end-to-end service is not running: run the suite with `npx jest -c test/e2e/jest.config.js`');
  }
  shared = { mode: modeFromEnv(), url, adminUrl: process.env.ASKDATA_E2E_ADMIN_URL ?? url, adminToken, databaseUrl: null, natsUrl: null, defaultKey: null, logDir: '' };
  return shared;
}

/**
 * `it` for a test that is about one run mode (the bootstrap project of standalone mode, a second gateway of
 * distributed mode): registered only when the suite runs in that mode, so the other mode's run neither runs it
 * nor reports it as skipped.
 */
export function itIn(mode: Mode): (name: string, fn: () => Promise<void>, timeout?: number) => void {
  return (name, fn, timeout) => {
    if (sharedService().mode === mode) it(name, fn, timeout);
  };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP client
// ---------------------------------------------------------------------------------------------------------------

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Api-Key header. */
  key?: string;
  /** Serialised as JSON with Content-Type: application/json. */
  body?: unknown;
  /** Sent as is (no Content-Type added). */
  raw?: string;
  headers?: Record<string, string>;
}

export async function request<T = any>(baseUrl: string, method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', ...(opts.key !== undefined ? { 'Api-Key': opts.key } : {}), ...opts.headers };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  const url = /^https?:/.test(path) ? path : baseUrl + path;
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON (e.g. /docs) */
    }
  } else parsed = null;
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** A request to the shared service. */
export function http<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
  return request<T>(sharedService().url, method, path, opts);
}

/** A request to the admin port of the shared service (the admin API, /health, /metrics). */
export function admin<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<HttpResponse<T>> {
  const s = sharedService();
  return request<T>(s.adminUrl, method, path, { body, headers: { Authorization: `Bearer ${token ?? s.adminToken}` } });
}

// ---------------------------------------------------------------------------------------------------------------
// Resources (interface.md field lists, plus the extensions decisions.md names)
// ---------------------------------------------------------------------------------------------------------------
// The resources are the client package's types, which test/e2e/client-contract.e2e-spec.ts checks against the
// OpenAPI document; the inputs are the tests' own, looser ones (tests send what the contract refuses too).
export type { Receipt, Upsert, UpsertStatus, Collection, Item, User, Source, ChatMessage, Chat, SearchHit, PageMeta, Page, ErrorBody };

export type Tenancy = 'single' | 'multi';

export interface UpsertItemInput {
  id: string | number;
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  tenant?: number;
  url?: string;
}

export interface CollectionInput {
  slug: string;
  name?: string;
  source?: string;
  metadata?: Record<string, { type: string; options?: unknown[] }>;
  language?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Projects and the helpers tests use
// ---------------------------------------------------------------------------------------------------------------

const UPSERT_WAIT_MS = 60_000;

export class Project {
  constructor(
    readonly id: string,
    readonly name: string,
    readonly tenancy: Tenancy,
    readonly key: string,
    readonly keyId: string,
    /** Base URL of the gateway this project's requests go to. */
    readonly baseUrl: string = sharedService().url,
  ) {}

  /** Same project and key, through another gateway (e.g. a dedicated one). */
  via(baseUrl: string): Project {
    return new Project(this.id, this.name, this.tenancy, this.key, this.keyId, baseUrl);
  }

  request<T = any>(method: string, path: string, opts: Omit<RequestOptions, 'key'> = {}): Promise<HttpResponse<T>> {
    return request<T>(this.baseUrl, method, `/v1${path}`, { key: this.key, ...opts });
  }

  get<T = any>(path: string): Promise<HttpResponse<T>> {
    return this.request<T>('GET', path);
  }

  post<T = any>(path: string, body: unknown): Promise<HttpResponse<T>> {
    return this.request<T>('POST', path, { body });
  }

  /** POST /upserts; returns the raw response (201 with the receipt, or an error). */
  upsert(items: unknown[], collection?: CollectionInput): Promise<HttpResponse<{ data: Receipt } & ErrorBody>> {
    return this.post('/upserts', { items, ...(collection ? { collection } : {}) });
  }

  /** Polls GET /upserts/{id} until completed or failed (bounded); returns the upsert in that state. */
  async waitForUpsert(id: string, timeoutMs = UPSERT_WAIT_MS): Promise<Upsert> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const r = await this.get<{ data: Upsert }>(`/upserts/${id}`);
      if (r.status === 200 && (r.body.data.status === 'completed' || r.body.data.status === 'failed')) return r.body.data;
      last = r.status === 200 ? `status ${r.body.data.status}` : `HTTP ${r.status} ${r.text}`;
      if (Date.now() > deadline) throw new Error(`upsert ${id} not completed or failed within ${timeoutMs} ms (last: ${last})`);
      await sleep(100);
    }
  }

  /** A DELETE whose receipt is polled like an upsert's; throws unless it was accepted (202) and completed. */
  async deleteAndWait(path: string): Promise<Upsert> {
    const r = await this.request<{ data: Receipt }>('DELETE', path);
    if (r.status !== 202) throw new Error(`DELETE /v1${path} answered ${r.status}: ${r.text}`);
    const done = await this.waitForUpsert(r.body.data.id);
    if (done.status !== 'completed') throw new Error(`delete ${done.id} ${done.status}: ${done.error ?? ''}`);
    return done;
  }

  /** Upserts and waits; throws unless the upsert was accepted and completed. Returns the completed upsert. */
  async upsertAndWait(items: UpsertItemInput[] | unknown[], collection?: CollectionInput): Promise<Upsert> {
    const r = await this.upsert(items, collection);
    if (r.status !== 201) throw new Error(`POST /v1/upserts answered ${r.status}: ${r.text}`);
    const done = await this.waitForUpsert(r.body.data.id);
    if (done.status !== 'completed') throw new Error(`upsert ${done.id} ${done.status}: ${done.error ?? ''}`);
    return done;
  }

  /** The item with this client id (in any collection unless one is given). */
  async item(itemId: string, collection?: string): Promise<Item> {
    const q = new URLSearchParams({ item_id: itemId, ...(collection ? { collection } : {}) });
    const r = await this.get<Page<Item>>(`/items?${q.toString()}`);
    if (r.status !== 200 || r.body.data.length !== 1) throw new Error(`item ${itemId}: ${r.status} ${r.text}`);
    return r.body.data[0];
  }
}

let counter = 0;

/** A fresh project with one API key, through the admin API of the shared service. */
export async function createProject(tenancy: Tenancy = 'single', opts: { name?: string; instructions?: string } = {}): Promise<Project> {
  return createProjectOn(sharedService(), tenancy, opts);
}

/** A project with one key, created through the admin API of a given service or gateway (e.g. a dedicated one). */
export async function createProjectOn(
  gw: { url: string; adminUrl: string; adminToken: string },
  tenancy: Tenancy = 'single',
  opts: { name?: string; instructions?: string } = {},
): Promise<Project> {
  const headers = { Authorization: `Bearer ${gw.adminToken}` };
  const name = opts.name ?? `e2e-${tenancy}-${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`;
  const body = { name, tenancy, ...(opts.instructions ? { instructions: opts.instructions } : {}) };
  const p = await request<{ data: { id: string } }>(gw.adminUrl, 'POST', '/admin/projects', { headers, body });
  if (p.status !== 201) throw new Error(`POST /admin/projects answered ${p.status}: ${p.text}`);
  const k = await request<{ data: { id: string; key: string } }>(gw.adminUrl, 'POST', `/admin/projects/${p.body.data.id}/keys`, { headers, body: { name: 'e2e' } });
  if (k.status !== 201) throw new Error(`POST /admin/projects/{id}/keys answered ${k.status}: ${k.text}`);
  return new Project(p.body.data.id, name, tenancy, k.body.data.key, k.body.data.id, gw.url);
}

/** POST /v1/upserts with a key; returns the receipt (throws unless 201). */
export async function upsert(key: string, items: unknown[], collection?: CollectionInput): Promise<Receipt> {
  const r = await http<{ data: Receipt }>('POST', '/v1/upserts', { key, body: { items, ...(collection ? { collection } : {}) } });
  if (r.status !== 201) throw new Error(`POST /v1/upserts answered ${r.status}: ${r.text}`);
  return r.body.data;
}

/** Polls an upsert until completed or failed (bounded). */
export function waitForUpsert(key: string, id: string, timeoutMs = UPSERT_WAIT_MS): Promise<Upsert> {
  return new Project('', '', 'single', key, '').waitForUpsert(id, timeoutMs);
}

/** Polls `probe` until it returns a value other than undefined (bounded). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(200);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Small shared facts
// ---------------------------------------------------------------------------------------------------------------

/** Service-side ids are UUIDv7. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** ISO-8601 UTC with microseconds. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** Well-formed UUIDv7 ids that no project has. */
export const MISSING_ID = '01a20000-0000-7000-8000-000000000000';
/** Path parameters that are not ids at all: unknown ids too (404, never 500). */
export const MALFORMED_IDS = ['not-an-id', '12345', 'zzzzzzzz-zzzz-7zzz-8zzz-zzzzzzzzzzzz', "1'%20OR%20'1'%3D'1", 'x'.repeat(300), '01A20000-0000-7000-8000-00000000000'];

/** The bracketed citation numbers of an answer's text. */
export function citations(text: string): number[] {
  return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}
