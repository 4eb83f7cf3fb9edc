import { randomUUID } from 'node:crypto';
import { ChunkInput } from '@askdata/contracts';
import { createDataSource, migrate } from '@askdata/common';
import { DataSource } from 'typeorm';
import { PrivatePostgres } from '../../bench/lib/private-infra';
import { adminQuery } from '../../bench/lib/service';
import { PostgresIndex } from '../../apps/retrieval/src/index/postgres-index';
import { SearchQuery } from '../../apps/retrieval/src/index/search-index';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';
import { until } from './support/faults';
import { memoryReplica } from './support/retrieval-index';

/**
 * The database server loses its last commits: here a crash where commits do not wait for the flush (an operator's
 * `synchronous_commit = off`); a failover to a standby they had not reached yet loses them the same way. The index
 * versions those writes took are taken again by the next. A replica that held the index in memory, with those writes
 * applied, lets go of it when it finds the server recovered, and then finds what the SQL search finds.
 */
jest.setTimeout(180000);

const WORDS = 'harbour ship rope sail anchor tide wind gull reef lighthouse keel mast deck cargo storm'.split(' ');

describe('an index held in memory when the database server crashes', () => {
  let pg: PrivatePostgres;
  let ds: DataSource;
  let url: string;
  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    // Commits do not wait for the flush, and stay in the server's memory for ten seconds: a crash meanwhile loses them.
    await adminQuery(pg.adminUrl, `ALTER SYSTEM SET wal_writer_delay = '10s'`);
    await adminQuery(pg.adminUrl, 'SELECT pg_reload_conf()');
    await adminQuery(pg.adminUrl, 'CREATE DATABASE askdata_crash');
    await adminQuery(pg.adminUrl, 'ALTER DATABASE askdata_crash SET synchronous_commit = off');
    url = pg.adminUrl.replace(/\/postgres$/, '/askdata_crash');
    ds = createDataSource(retrievalDatabase, { url, poolSize: 4, applicationName: 'crash-test' });
    await ds.initialize();
    await migrate(ds, 'retrieval');
  });
  afterAll(async () => {
    await ds?.destroy();
    await pg?.destroy();
  });

  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const item = (i: number, chunks = [text(5 + Math.floor(rand() * 30)), text(5 + Math.floor(rand() * 30))]): ChunkInput => ({
    itemId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    clientItemId: `item-${i}`,
    collection: 'docks',
    tenant: null,
    url: null,
    metadata: {},
    title: '',
    chunks,
  });
  const query = (key: string, q: string): SearchQuery => ({ text: q, tenant: null, collections: null, scope: { projectId: key, tenancy: 'single' }, filters: [], limit: 8 });
  const found = async (index: PostgresIndex, key: string) => {
    const out = [];
    for (const q of ['zephyr', 'harbour gull', 'storm keel']) out.push((await index.search(query(key, q))).map((h) => [h.item_id, h.chunk, h.score]));
    return out;
  };
  /** A statement committed with a wait for the flush. */
  const flushed = (sql: string) =>
    ds.transaction(async (tx) => {
      await tx.query('SET LOCAL synchronous_commit = on');
      await tx.query(sql);
    });
  it('lets go of it when the server recovered without the last writes, and then finds what SQL finds', async () => {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'single' as const };
    const [reader, writer] = [memoryReplica(ds, 64, { versionsUrl: url }), memoryReplica(ds, 0)];
    try {
      reader.memory.onApplicationBootstrap();
      await until('listening', () => reader.memory.listening());
      await writer.index.replace(
        scope,
        Array.from({ length: 30 }, (_, i) => item(i)),
      );
      // A commit that waits for the flush flushes everything committed before it.
      await flushed('CREATE TABLE public.flushed ()');
      await until('loaded', async () => (await reader.index.search(query(key, 'harbour')), reader.memory.holds(key)));

      // The index versions' sequence logs its values ahead, 32 at a time: as at every 32nd write, the next takes a new
      // run, and the crash loses that with the write, so the write after the crash takes the same version again.
      await flushed(`SELECT setval('retrieval.index_version_seq', last_value) FROM retrieval.index_version_seq`);
      // A write the crash will lose, applied in memory once heard.
      await writer.index.replace(scope, [item(100, ['zephyr gull'])]);
      await until('the write heard', async () => (await reader.index.search(query(key, 'zephyr'))).map((h) => h.item_id).join() === 'item-100');
      expect(reader.memory.holds(key)).toBe(true);

      // A server process killed: the server recovers from the log it flushed, without that write.
      const [{ pid }] = await ds.query<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid');
      process.kill(pid, 'SIGKILL');
      await until(
        'recovered without it',
        async () => (await ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM retrieval.chunks WHERE client_item_id = 'item-100'`))[0].n === 0,
      );
      await until('listening', () => reader.memory.listening());
      await until('let go', () => !reader.memory.holds(key));

      // Writes go on, and the replica loads the index again, finding what SQL finds.
      const [before] = await ds.query<Array<{ version: string }>>('SELECT version::text FROM retrieval.stats WHERE project_id = $1', [key]);
      await writer.index.replace(scope, [item(101, ['zephyr storm'])]);
      const [after] = await ds.query<Array<{ version: string }>>('SELECT version::text FROM retrieval.stats WHERE project_id = $1', [key]);
      expect(Number(after.version)).toBe(Number(before.version) + 1);
      await until('loaded', async () => (await reader.index.search(query(key, 'harbour')), reader.memory.holds(key)));
      const expected = await found(writer.index, key);
      expect(expected[0].map(([id]) => id)).toEqual(['item-101']);
      expect(await found(reader.index, key)).toEqual(expected);
    } finally {
      await reader.memory.onApplicationShutdown();
    }
  });
});
