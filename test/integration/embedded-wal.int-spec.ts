import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery as query } from '../../bench/lib/service';
import type * as Embedded from '../../launcher/src/embedded-postgres';

/**
 * Standalone's embedded database keeps its WAL small once a load is over: a checkpoint removes the segments it no
 * longer needs instead of keeping them for reuse, whatever the load wrote. Its rows survive a restart. The database
 * runs from the build (its engine's thread is a compiled file).
 */
jest.setTimeout(180000);

const ROOT = join(__dirname, '..', '..');
const SEGMENT = 16 * 2 ** 20;

async function embedded(): Promise<typeof Embedded> {
  return (await import(join(ROOT, 'dist', 'launcher', 'src', 'embedded-postgres.js'))) as typeof Embedded;
}

function walBytes(dataDir: string): number {
  const dir = join(dataDir, 'pg', 'pg_wal');
  return readdirSync(dir)
    .filter((f) => /^[0-9A-F]{24}$/.test(f))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

describe("standalone's embedded database", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'askdata-wal-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps at most two WAL segments after a checkpoint that follows a load of over 100 MB, and its rows after a restart', async () => {
    const { startEmbeddedPostgres } = await embedded();
    let pg = await startEmbeddedPostgres(dataDir);
    try {
      const [start] = await query<{ lsn: string }>(pg.url, 'SELECT pg_current_wal_lsn()::text AS lsn');
      await query(pg.url, 'CREATE TABLE loaded (n int PRIMARY KEY, v text)');
      for (let i = 0; i < 5; i++) {
        await query(pg.url, `INSERT INTO loaded SELECT g, md5(g::text) || repeat('x', 1000) FROM generate_series(${i * 20000 + 1}, ${(i + 1) * 20000}) g`);
      }
      const [written] = await query<{ bytes: string }>(pg.url, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${start.lsn}')::text AS bytes`);
      expect(Number(written.bytes)).toBeGreaterThan(100 * 2 ** 20);
      await query(pg.url, 'CHECKPOINT');
      expect(walBytes(dataDir)).toBeLessThanOrEqual(2 * SEGMENT);
    } finally {
      await pg.stop();
    }
    pg = await startEmbeddedPostgres(dataDir);
    try {
      const [count] = await query<{ n: number }>(pg.url, 'SELECT count(*)::int AS n FROM loaded');
      expect(count.n).toBe(100000);
    } finally {
      await pg.stop();
    }
  });
});
