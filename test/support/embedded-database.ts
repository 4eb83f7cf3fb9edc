import { createDataSource, ServiceDatabase, sharedPgDriver } from '@askdata/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';

export interface EmbeddedDatabase {
  /** The service's DataSource, its schema migrated. */
  ds: DataSource;
  stop(): Promise<void>;
}

/**
 * The embedded database on a thread of its own, outside jest's module sandbox (PGlite loads its engine with a
 * dynamic import, which the sandbox refuses). It lives in memory and goes with the thread: closing it first would
 * let a client's last message, still on its way through the socket, reach a closed engine and throw there.
 */
const ENGINE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
const { PGLiteSocketServer } = require(workerData.socket);
(async () => {
  const db = await PGlite.create();
  await new PGLiteSocketServer({ db, path: workerData.path }).start();
  parentPort.postMessage('ready');
})().catch((e) => parentPort.postMessage({ error: String(e) }));
`;

/**
 * A service's schema in a fresh in-memory embedded PostgreSQL (PGlite, as standalone mode runs it), reached through
 * the same `pg` driver over a private Unix socket: for unit tests of a service's statements.
 */
export async function embeddedDatabase(service: ServiceDatabase): Promise<EmbeddedDatabase> {
  const socketDir = mkdtempSync(join(tmpdir(), 'askdata-unit-'));
  const workerData = {
    path: join(socketDir, '.s.PGSQL.5432'),
    pglite: require.resolve('@electric-sql/pglite'),
    socket: require.resolve('@electric-sql/pglite-socket'),
  };
  const worker = new Worker(ENGINE, { eval: true, workerData });
  const said = () => new Promise<unknown>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  const ready = await said();
  if (ready !== 'ready') throw new Error(`the embedded PostgreSQL did not start: ${JSON.stringify(ready)}`);
  const pool = new Pool({ connectionString: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`, max: 1 });
  const ds = createDataSource(service, { url: 'postgresql://postgres@localhost/postgres', poolSize: 1, applicationName: 'unit', driver: sharedPgDriver(pool) });
  await ds.initialize();
  await ds.query(`CREATE SCHEMA IF NOT EXISTS "${service.schema}"`);
  await ds.runMigrations({ transaction: 'each' });
  return {
    ds,
    async stop() {
      await ds.destroy();
      await pool.end();
      await worker.terminate();
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/**
 * The embedded database of `service` for the tests of the `describe` block this is called in: started before them,
 * stopped after them. Returns its DataSource once started.
 */
export function embeddedDatabaseForTests(service: ServiceDatabase): () => DataSource {
  let db: EmbeddedDatabase | undefined;
  beforeAll(async () => {
    db = await embeddedDatabase(service);
  }, 60000);
  afterAll(() => db?.stop());
  return () => db!.ds;
}
