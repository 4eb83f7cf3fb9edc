import { randomUUID } from 'node:crypto';
import { ChunkInput } from '@askdata/contracts';
import { createDataSource, loadConfig, migrate } from '@askdata/common';
import { DataSource } from 'typeorm';
import { PrivatePostgres } from '../../bench/lib/private-infra';
import { adminQuery } from '../../bench/lib/service';
import { BatchPreparer } from '../../apps/retrieval/src/index/batch-preparer';
import { IndexVacuum } from '../../apps/retrieval/src/index/index-vacuum';
import { MemoryIndexes } from '../../apps/retrieval/src/index/memory-indexes';
import { PostgresIndex } from '../../apps/retrieval/src/index/postgres-index';
import { SearchQuery } from '../../apps/retrieval/src/index/search-index';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';
import { noMerges } from './support/retrieval-index';

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

  function replica(mb: number) {
    const config = loadConfig(retrievalSettings, { BM25_DEPTH: '0', SEARCH_MEMORY_MB: String(mb), INDEX_PREPARATION_THREAD: 'false' });
    const memory = new MemoryIndexes(ds, config, true, mb ? url : null);
    return { index: new PostgresIndex(ds, config, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }), new BatchPreparer(config), memory, noMerges(ds)), memory };
  }

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
  const waitFor = async (what: () => boolean | Promise<boolean>, ms = 20000) => {
    const end = Date.now() + ms;
    while (!(await Promise.resolve(what()).catch(() => false)) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await what()).toBe(true);
  };

  it('lets go of it when the server recovered without the last writes, and then finds what SQL finds', async () => {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'single' as const };
    const [reader, writer] = [replica(64), replica(0)];
    const listening = () => (reader.memory as unknown as { versions: { trusted(): boolean } }).versions.trusted();
    try {
      reader.memory.onApplicationBootstrap();
      await waitFor(listening);
      await writer.index.replace(
        scope,
        Array.from({ length: 30 }, (_, i) => item(i)),
      );
      // A commit that waits for the flush flushes everything committed before it.
      await flushed('CREATE TABLE public.flushed ()');
      await waitFor(async () => (await reader.index.search(query(key, 'harbour')), reader.memory.holds(key)));

      // The index versions' sequence logs its values ahead, 32 at a time: as at every 32nd write, the next takes a new
      // run, and the crash loses that with the write, so the write after the crash takes the same version again.
      await flushed(`SELECT setval('retrieval.index_version_seq', last_value) FROM retrieval.index_version_seq`);
      // A write the crash will lose, applied in memory once heard.
      await writer.index.replace(scope, [item(100, ['zephyr gull'])]);
      await waitFor(async () => (await reader.index.search(query(key, 'zephyr'))).map((h) => h.item_id).join() === 'item-100');
      expect(reader.memory.holds(key)).toBe(true);

      // A server process killed: the server recovers from the log it flushed, without that write.
      const [{ pid }] = await ds.query<Array<{ pid: number }>>('SELECT pg_backend_pid() AS pid');
      process.kill(pid, 'SIGKILL');
      await waitFor(async () => (await ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM retrieval.chunks WHERE client_item_id = 'item-100'`))[0].n === 0);
      await waitFor(listening);
      await waitFor(() => !reader.memory.holds(key));

      // Writes go on, and the replica loads the index again, finding what SQL finds.
      const [before] = await ds.query<Array<{ version: string }>>('SELECT version::text FROM retrieval.stats WHERE project_id = $1', [key]);
      await writer.index.replace(scope, [item(101, ['zephyr storm'])]);
      const [after] = await ds.query<Array<{ version: string }>>('SELECT version::text FROM retrieval.stats WHERE project_id = $1', [key]);
      expect(Number(after.version)).toBe(Number(before.version) + 1);
      await waitFor(async () => (await reader.index.search(query(key, 'harbour')), reader.memory.holds(key)));
      const expected = await found(writer.index, key);
      expect(expected[0].map(([id]) => id)).toEqual(['item-101']);
      expect(await found(reader.index, key)).toEqual(expected);
    } finally {
      await reader.memory.onApplicationShutdown();
    }
  });
});
