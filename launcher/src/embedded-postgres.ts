import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { sharedPgDriver } from '@askdata/common';
import { Pool } from 'pg';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EmbeddedPostgres {
  url: string;
  /** The one connection every service shares (see sharedPgDriver). */
  driver: unknown;
  stop(): Promise<void>;
}

/**
 * Standalone mode's database: PostgreSQL compiled to WebAssembly (PGlite), kept on disk under DATA_DIR and
 * served over the PostgreSQL wire protocol on a private Unix socket, so every service talks to it through the
 * same `pg` driver, schemas and migrations as in distributed mode.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections = 8): Promise<EmbeddedPostgres> {
  const pgDir = join(dataDir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  const db = await PGlite.create({ dataDir: pgDir });
  // Unix socket paths are limited to ~107 bytes, so the socket lives in a short private directory.
  const socketDir = mkdtempSync(join(tmpdir(), 'askdata-'));
  const server = new PGLiteSocketServer({ db, path: join(socketDir, '.s.PGSQL.5432'), maxConnections });
  await server.start();
  const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  // Generous wait for the single connection: a large batch holds it for a while under load.
  const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 120000, idleTimeoutMillis: 0 });
  return {
    url,
    driver: sharedPgDriver(pool),
    async stop() {
      await pool.end().catch(() => undefined);
      await server.stop().catch(() => undefined);
      await db.close().catch(() => undefined);
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
