import { inBackground, PriorityPool, registry, sharedPgDriver, THREAD_RESOURCE_LIMITS } from '@askdata/common';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Gauge } from 'prom-client';
import type { EmbeddedPostgresMemory, EmbeddedPostgresWorkerData } from './embedded-postgres.worker';

/**
 * How often standalone's database is checkpointed: its engine has no checkpointer of its own, and WAL is removed
 * only at a checkpoint (the worker starts it with `wal_recycle` off: one or two segments stay).
 */
const EMBEDDED_CHECKPOINT_MS = 30000;

export interface EmbeddedPostgres {
  url: string;
  /** The one connection every service shares (see sharedPgDriver). */
  driver: unknown;
  stop(): Promise<void>;
}

/**
 * Standalone mode's database: PostgreSQL compiled to WebAssembly (PGlite), kept on disk under DATA_DIR and
 * served over the PostgreSQL wire protocol on a private Unix socket, so every service talks to it through the
 * same `pg` driver, schemas and migrations as in distributed mode. The engine runs on a worker thread, so the
 * database and the services work on separate cores.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections = 8): Promise<EmbeddedPostgres> {
  const pgDir = join(dataDir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  // Unix socket paths are limited to ~107 bytes, so the socket lives in a short private directory.
  const socketDir = mkdtempSync(join(tmpdir(), 'askdata-'));
  const data: EmbeddedPostgresWorkerData = { pgDir, socketPath: join(socketDir, '.s.PGSQL.5432'), maxConnections };
  let worker: Worker;
  try {
    // A new database is created on a thread of its own, which then ends: what initdb used goes with it.
    if (!existsSync(join(pgDir, 'PG_VERSION'))) await (await startThread({ ...data, initOnly: true })).terminate();
    worker = await startThread(data);
  } catch (e) {
    rmSync(socketDir, { recursive: true, force: true });
    throw e;
  }
  measureMemoryOf(worker);
  const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  // Generous wait for the single connection: a large batch holds it for a while under load. Reads take it first.
  const pool = new PriorityPool({ connectionString: url, max: 1, connectionTimeoutMillis: 120000, idleTimeoutMillis: 0 });
  // A connection that replaces a lost one (pg drops a client after a failed query) meets the single session as the
  // last one left it, its named statements included, which it would prepare again ("already exists"): it starts by
  // forgetting them. Sent before anything the new connection is asked.
  pool.on('connect', (client) => void client.query('DEALLOCATE ALL').catch(() => undefined));
  // In the background lane, so that a checkpoint waits behind reads; a failed one is tried again at the next turn.
  const checkpoints = setInterval(() => void inBackground(() => pool.query('CHECKPOINT')).catch(() => undefined), EMBEDDED_CHECKPOINT_MS);
  checkpoints.unref();
  return {
    url,
    driver: sharedPgDriver(pool),
    async stop() {
      clearInterval(checkpoints);
      await pool.end().catch(() => undefined);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        worker.on('message', (m) => m === 'stopped' && done());
        worker.once('exit', done);
        worker.once('error', done);
        worker.postMessage('stop');
      });
      await worker.terminate();
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/** Starts the database's thread and waits for it to say it is ready. */
async function startThread(data: EmbeddedPostgresWorkerData): Promise<Worker> {
  const worker = new Worker(join(__dirname, 'embedded-postgres.worker.js'), { workerData: data, resourceLimits: THREAD_RESOURCE_LIMITS });
  // Only the listeners added here are removed: the worker's own (which deliver its later messages) stay.
  let onError: (e: Error) => void = () => undefined;
  let onExit: (code: number) => void = () => undefined;
  let onMessage: (m: unknown) => void = () => undefined;
  await new Promise<void>((resolve, reject) => {
    onError = reject;
    onExit = (code) => reject(new Error(`the embedded PostgreSQL exited during start (code ${code})`));
    onMessage = (m) => (m === 'ready' ? resolve() : reject(new Error(`the embedded PostgreSQL did not start: ${(m as { error: string }).error}`)));
    worker.on('error', onError).on('exit', onExit).on('message', onMessage);
  })
    .catch((e: Error) => {
      void worker.terminate();
      throw e;
    })
    .finally(() => worker.off('error', onError).off('exit', onExit).off('message', onMessage));
  return worker;
}

let memoryOf: Worker | null = null;
/** Registered once an embedded database runs: the processes of distributed mode have none to report. */
let memoryGauge: Gauge | null = null;
const gauge = () =>
  new Gauge({
    name: 'askdata_embedded_db_memory_bytes',
    help: "Standalone: the embedded database's WebAssembly memory; it grows to the largest need met so far and never shrinks.",
    registers: [registry],
    async collect() {
      const worker = memoryOf;
      if (!worker) return;
      const answer = await new Promise<EmbeddedPostgresMemory | null>((resolve) => {
        const timer = setTimeout(() => done(null), 1000);
        const done = (m: EmbeddedPostgresMemory | null) => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          resolve(m);
        };
        const onMessage = (m: unknown) => {
          if (typeof m === 'object' && m !== null && 'memoryBytes' in m) done(m as EmbeddedPostgresMemory);
        };
        worker.on('message', onMessage);
        worker.postMessage('memory');
      });
      if (answer) this.set(answer.memoryBytes);
    },
  });

/** The gauge reads the memory of this thread's engine (the one running) when the metrics are scraped. */
function measureMemoryOf(worker: Worker): void {
  memoryOf = worker;
  memoryGauge ??= gauge();
  worker.once('exit', () => {
    if (memoryOf === worker) memoryOf = null;
  });
}
