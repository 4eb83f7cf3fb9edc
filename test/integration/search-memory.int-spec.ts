import { randomUUID } from 'node:crypto';
import { ChunkInput, FieldFilter } from '@askdata/contracts';
import { loadConfig, migrate } from '@askdata/common';
import { DataSource } from 'typeorm';
import { BatchPreparer } from '../../apps/retrieval/src/index/batch-preparer';
import { ChunkRows, Packed, unpacked } from '../../apps/retrieval/src/index/chunk-rows';
import { IndexVacuum } from '../../apps/retrieval/src/index/index-vacuum';
import { MemoryIndexes } from '../../apps/retrieval/src/index/memory-indexes';
import { PostgresIndex } from '../../apps/retrieval/src/index/postgres-index';
import { SearchQuery } from '../../apps/retrieval/src/index/search-index';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';
import { scratchDatabase } from './support/scratch-database';
import { until } from './support/faults';
import { memoryReplica, noMerges } from './support/retrieval-index';

/**
 * Replicas of retrieval over one database, each with the index in its memory: what a search finds from memory is what
 * the SQL search finds (exhaustive, BM25_DEPTH 0), on every replica, through writes another replica makes, replaced
 * and removed items, tenants and collections, and a dropped index. Standalone's single writer applies its own writes.
 */
jest.setTimeout(120000);

const WORDS = 'harbour ship rope sail anchor tide wind gull reef lighthouse keel mast deck cargo storm'.split(' ');

describe('indexes held in memory', () => {
  const scratch = scratchDatabase('askdata_memory_test');
  let ds: DataSource;
  beforeAll(async () => {
    await scratch.reset();
    ds = scratch.current(retrievalDatabase);
    await ds.initialize();
    await migrate(ds, 'retrieval');
  });
  afterAll(async () => {
    await ds.destroy();
    await scratch.drop();
  });

  /** A replica: its own memory (none with `mb` 0, which searches in SQL), over the shared database. */
  const replica = (mb: number, shared = true, versionsUrl: string | null = null) => memoryReplica(ds, mb, { shared, versionsUrl });

  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const item = (i: number, over: Partial<ChunkInput> = {}): ChunkInput => ({
    itemId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    clientItemId: `item-${i}`,
    collection: i % 3 ? 'docks' : 'ships',
    tenant: i % 2 ? 1 : 2,
    url: null,
    metadata: {},
    title: '',
    chunks: [text(5 + Math.floor(rand() * 40)), text(5 + Math.floor(rand() * 40))],
    ...over,
  });

  const queries = (key: string): SearchQuery[] =>
    [
      { text: 'harbour ship', tenant: null, collections: null },
      { text: 'anchor storm gull', tenant: 1, collections: null },
      { text: 'reef keel', tenant: null, collections: ['ships'] },
      { text: 'zephyr harbour', tenant: null, collections: null },
    ].map((q) => ({ ...q, scope: { projectId: key, tenancy: 'multi' as const }, filters: [], limit: 8 }));

  /** What each query finds: item, chunk, score and text. */
  async function found(index: PostgresIndex, key: string) {
    const out = [];
    for (const q of queries(key)) out.push((await index.search(q)).map((h) => [h.item_id, h.chunk, h.score, h.text]));
    return out;
  }

  async function loaded(memory: MemoryIndexes, index: PostgresIndex, key: string): Promise<void> {
    for (let i = 0; i < 200 && !memory.holds(key); i++) {
      await index.search(queries(key)[0]);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(memory.holds(key)).toBe(true);
  }

  /** A lone writer (standalone) holding an index of 30 items, and a replica searching in SQL. */
  async function loneWriter() {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'multi' as const };
    const [alone, sql] = [replica(64, false), replica(0)];
    await alone.index.replace(
      scope,
      Array.from({ length: 30 }, (_, i) => item(i)),
    );
    await loaded(alone.memory, alone.index, key);
    return { key, scope, alone, sql };
  }

  /** What the replica finds for `key`, asserted to equal `expected`, from memory, without reading recorded changes back. */
  async function foundWithoutChanges({ index, memory }: ReturnType<typeof replica>, key: string, expected: unknown): Promise<void> {
    const statements = jest.spyOn(ds, 'query');
    expect(await found(index, key)).toEqual(expected);
    expect(statements.mock.calls.filter(([sql]) => String(sql).includes('index_changes'))).toEqual([]);
    statements.mockRestore();
    expect(memory.holds(key)).toBe(true);
  }

  it('finds on every replica what SQL finds, through another replica writes, replacements and removals', async () => {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'multi' as const };
    const [writer, reader, sql] = [replica(64), replica(64), replica(0)];
    await writer.index.replace(
      scope,
      Array.from({ length: 60 }, (_, i) => item(i)),
    );
    await loaded(reader.memory, reader.index, key);
    const before = await found(sql.index, key);
    expect(before.flat().length).toBeGreaterThan(10);
    expect(await found(reader.index, key)).toEqual(before);

    // Another replica replaces some items, removes others and adds new ones: the reader's next search sees all of it.
    await writer.index.replace(scope, [item(1, { chunks: ['a zephyr over the lighthouse'] }), item(2, { chunks: [] }), item(3, { chunks: [] }), item(70), item(71)]);
    const after = await found(sql.index, key);
    expect(after).not.toEqual(before);
    expect(after[3][0][0]).toBe('item-1');
    expect(after.flat().map(([id]) => id)).not.toContain('item-2');
    expect(await found(reader.index, key)).toEqual(after);
    expect(reader.memory.holds(key)).toBe(true);

    // A replica of the release before (a rolling upgrade) removes an item without a new version or a change
    // recorded: the version changes anyway (a trigger), so the reader loads the index again rather than miss it.
    const gone = after[0][0][0];
    await ds.query(`DELETE FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = $2`, [key, gone]);
    await ds.query(`UPDATE retrieval.stats SET chunk_count = chunk_count - 2 WHERE project_id = $1`, [key]);
    expect((await found(reader.index, key)).flat().map(([id]) => id)).not.toContain(gone);
    await loaded(reader.memory, reader.index, key);
    expect((await found(reader.index, key)).flat().map(([id]) => id)).not.toContain(gone);

    // Dropped by another replica: nothing is found.
    await writer.index.drop(key);
    expect(await found(reader.index, key)).toEqual([[], [], [], []]);
  });

  it('hears the versions every replica writes, so a listening replica asks for none, and sees each write as its writer answers', async () => {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'multi' as const };
    const [writer, reader, sql] = [replica(64, true, scratch.url), replica(64, true, scratch.url), replica(0)];
    try {
      writer.memory.onApplicationBootstrap();
      reader.memory.onApplicationBootstrap();
      await until('both listening', () => writer.memory.listening() && reader.memory.listening());
      await writer.index.replace(
        scope,
        Array.from({ length: 40 }, (_, i) => item(i)),
      );
      await loaded(reader.memory, reader.index, key);
      expect(await found(reader.index, key)).toEqual(await found(sql.index, key));
      const versions = jest.spyOn(reader.memory as unknown as { version(key: string): Promise<number | null> }, 'version');

      // Another replica's writes are seen as soon as it has answered, and no search asks for the version.
      for (let round = 0; round < 3; round++) {
        await writer.index.replace(scope, [item(100 + round, { chunks: [`zephyr ${'zephyr '.repeat(round)}gull`] }), item(round + 1, { chunks: [] })]);
        const seen = await found(reader.index, key);
        const expected = await found(sql.index, key);
        expect(expected[3][0][0]).toBe(`item-${100 + round}`);
        expect(seen).toEqual(expected);
      }
      expect(versions).not.toHaveBeenCalled();

      // A replica of the release before announces nothing itself: the database does, as its write commits (and with no
      // change recorded for it, the reader loads the index again).
      const gone = (await found(sql.index, key))[0][0][0];
      await ds.query(`DELETE FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = $2`, [key, gone]);
      await ds.query(`UPDATE retrieval.stats SET chunk_count = chunk_count - 2 WHERE project_id = $1`, [key]);
      for (let i = 0; i < 100 && (await found(reader.index, key)).flat().some(([id]) => id === gone); i++) await new Promise((r) => setTimeout(r, 50));
      expect((await found(reader.index, key)).flat().map(([id]) => id)).not.toContain(gone);

      // Dropped by another replica: let go here before the drop answered.
      await writer.index.drop(key);
      expect(reader.memory.holds(key)).toBe(false);
      expect(await found(reader.index, key)).toEqual([[], [], [], []]);

      // Not listening (versions may be missed): every search asks.
      await writer.index.replace(
        scope,
        Array.from({ length: 20 }, (_, i) => item(i)),
      );
      await loaded(reader.memory, reader.index, key);
      await reader.memory.onApplicationShutdown();
      versions.mockClear();
      expect(await found(reader.index, key)).toEqual(await found(sql.index, key));
      expect(versions).toHaveBeenCalledTimes(queries(key).length);
    } finally {
      await writer.memory.onApplicationShutdown();
      await reader.memory.onApplicationShutdown();
    }
  });

  it('keeps what it holds when its listening connection is cut while the server runs on', async () => {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'multi' as const };
    const [reader, sql] = [replica(64, true, scratch.url), replica(0)];
    try {
      reader.memory.onApplicationBootstrap();
      await until('listening', () => reader.memory.listening());
      await sql.index.replace(
        scope,
        Array.from({ length: 30 }, (_, i) => item(i)),
      );
      await loaded(reader.memory, reader.index, key);

      // Cut, and connected again: versions are read again, but the server is the same one (a crash: memory-after-crash).
      await ds.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'askdata-retrieval-versions' AND datname = current_database()`);
      await until('the connection cut', () => !reader.memory.listening());
      await until('listening again', () => reader.memory.listening());
      await new Promise((r) => setTimeout(r, 200));
      expect(reader.memory.holds(key)).toBe(true);
      expect(await found(reader.index, key)).toEqual(await found(sql.index, key));
    } finally {
      await reader.memory.onApplicationShutdown();
    }
  });

  it("applies a lone writer's own writes as they commit", async () => {
    const { key, scope, alone, sql } = await loneWriter();
    await alone.index.replace(scope, [item(4, { chunks: ['zephyr zephyr'] }), item(5, { chunks: [] })]);
    const expected = await found(sql.index, key);
    expect(expected[3][0][0]).toBe('item-4');
    // Applied from what the write prepared: the search reads no changes back.
    await foundWithoutChanges(alone, key, expected);

    // Writes in flight together (INDEX_CONCURRENCY) are applied one after the other, none left to a catch-up in SQL,
    // however long each takes to apply.
    const memory = alone.memory as unknown as { apply: (...args: unknown[]) => Promise<void> };
    const apply = memory.apply.bind(alone.memory);
    const slowly = jest.spyOn(memory, 'apply').mockImplementation(async (...args) => {
      await new Promise((r) => setTimeout(r, 100));
      return apply(...args);
    });
    await Promise.all([
      alone.index.replace(scope, [item(6, { chunks: ['zephyr gull'] }), item(40)]),
      alone.index.replace(scope, [item(7, { chunks: [] }), item(41, { chunks: ['zephyr zephyr zephyr harbour'] })]),
      alone.index.replace(scope, [item(8, { chunks: ['zephyr'] })]),
    ]);
    expect(slowly).toHaveBeenCalledTimes(3);
    slowly.mockRestore();
    const later = await found(sql.index, key);
    expect(later[3][0][0]).toBe('item-41');
    await foundWithoutChanges(alone, key, later);

    // A write that fails to apply in memory has the index loaded again: nothing it wrote is missed.
    const failing = jest.spyOn(memory, 'apply').mockRejectedValueOnce(new Error('out of memory'));
    await alone.index.replace(scope, [item(42, { chunks: ['zephyr zephyr zephyr zephyr harbour harbour'] })]);
    failing.mockRestore();
    expect(alone.memory.holds(key)).toBe(false);
    const last = await found(sql.index, key);
    expect(last[3][0][0]).toBe('item-42');
    expect(await found(alone.index, key)).toEqual(last);
    await loaded(alone.memory, alone.index, key);
    await foundWithoutChanges(alone, key, last);
  });

  it('keeps the rows a lone writer writes to an index read ahead whole, as the database gives them back', async () => {
    const { key, scope, alone, sql } = await loneWriter();
    const rows = (alone.index as unknown as { rows: ChunkRows }).rows;
    for (let i = 0; i < 200 && !rows.keepsWrites(key); i++) {
      await alone.index.search(queries(key)[0]);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(rows.keepsWrites(key)).toBe(true);
    // Members whose names sort differently in jsonb than as written, nested, and text beyond ASCII.
    const metadata = { zeta: 'é', a: { bb: [1, { yy: 2, x: 3 }], a: 2.5 }, '10': null, ée: true };
    // An item without chunks first (the chunks' numbers follow the items that have some), no tenant, another language.
    await alone.index.replace(scope, [
      item(52, { chunks: [] }),
      item(50, { chunks: ['zephyr harbour über alles'], metadata, url: 'https://example.com/50' }),
      item(51, { chunks: ['zephyr', 'zephyr gull'], tenant: null, language: 'de' }),
    ]);
    const expected = await found(sql.index, key);
    expect(expected[3].map(([id]) => id)).toEqual(expect.arrayContaining(['item-50', 'item-51']));
    const pool = (ds.driver as unknown as { master: { query: (...args: unknown[]) => unknown } }).master;
    const statements = jest.spyOn(pool, 'query');
    const shown = await found(alone.index, key);
    expect(statements).not.toHaveBeenCalled();
    statements.mockRestore();
    expect(shown).toEqual(expected);
    const q = { ...queries(key)[3], text: 'zephyr harbour' };
    const [fromMemory, fromSql] = [await alone.index.search(q), await sql.index.search(q)];
    expect(JSON.stringify(fromMemory)).toEqual(JSON.stringify(fromSql));
    expect(JSON.stringify(fromMemory.find((h) => h.item_id === 'item-50')?.metadata)).toBe(
      JSON.stringify({ a: { a: 2.5, bb: [1, { x: 3, yy: 2 }] }, '10': null, ée: true, zeta: 'é' }),
    );
    expect(fromMemory.find((h) => h.item_id === 'item-51')).toMatchObject({ tenant: null, language: 'de' });

    // Replaced: the rows of its old chunks are let go, its new ones kept.
    const [old] = await ds.query<Array<{ id: string }>>(`SELECT id::text AS id FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = 'item-50'`, [key]);
    const kept = (rows as unknown as { kept: Map<string, unknown> }).kept;
    expect(kept.has(old.id)).toBe(true);
    await alone.index.replace(scope, [item(50, { chunks: ['zephyr harbour again'], metadata })]);
    expect(kept.has(old.id)).toBe(false);
    const replaced = jest.spyOn(pool, 'query');
    const again = await alone.index.search(q);
    expect(replaced).not.toHaveBeenCalled();
    replaced.mockRestore();
    expect(JSON.stringify(again)).toEqual(JSON.stringify(await sql.index.search(q)));
    expect(again.find((h) => h.item_id === 'item-50')?.text).toBe('zephyr harbour again');
  });

  it("reads a small index's rows ahead, so that its hits are shown without a statement", async () => {
    const key = randomUUID();
    const { index } = replica(0);
    await index.replace(
      { projectId: key, tenancy: 'multi' },
      Array.from({ length: 1200 }, (_, i) => item(i)),
    );
    const chunks = unpacked(
      await ds.query<Array<Packed<{ id: string; text: string }>>>('SELECT id::text AS id, text, packed FROM retrieval.chunks WHERE project_id = $1 ORDER BY id', [key]),
    );
    expect(chunks).toHaveLength(2400);
    const rows = new ChunkRows(ds, 64 * 1024 * 1024);
    await rows.readAhead(key);
    const pool = (ds.driver as unknown as { master: { query: (...args: unknown[]) => unknown } }).master;
    const statements = jest.spyOn(pool, 'query');
    const held = await rows.read(
      key,
      chunks.map((c) => c.id),
    );
    expect(statements).not.toHaveBeenCalled();
    statements.mockRestore();
    expect(chunks.map((c) => held.get(c.id)?.text)).toEqual(chunks.map((c) => c.text));
    // Too big for half the budget: as many read ahead as fit there, the others read when found, in one statement.
    const small = new ChunkRows(ds, 1024 * 1024);
    await small.readAhead(key);
    const again = jest.spyOn(pool, 'query');
    const found = await small.read(
      key,
      chunks.map((c) => c.id),
    );
    expect(again).toHaveBeenCalledTimes(1);
    const asked = (again.mock.calls[0][0] as { values: [string, string[]] }).values[1];
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(chunks.length);
    again.mockRestore();
    expect(chunks.map((c) => found.get(c.id)?.text)).toEqual(chunks.map((c) => c.text));
  });

  it('searches with a metadata filter from memory, finding what SQL finds, through replaced metadata; one that does not fit, in SQL', async () => {
    const key = randomUUID();
    const scope = { projectId: key, tenancy: 'multi' as const };
    const [held, writer, sql] = [replica(64), replica(64), replica(0)];
    const COLORS: unknown[] = ['red', 'blue', ['red', 'green'], 'Red', 7, [['red']], null];
    const AT: unknown[] = ['2024-01-15', '2024-03-01T12:00:00Z', '2024-03', '\uff5e', '\u{1f600}', 20240301, '2025-12-31'];
    const metadata = (i: number, shift = 0): Record<string, unknown> => ({
      n: i,
      ...(i % 6 ? { color: COLORS[(i + shift) % COLORS.length] } : {}),
      at: AT[(i + shift) % AT.length],
      flag: i % 3 ? true : 'true',
    });
    await held.index.replace(
      scope,
      Array.from({ length: 40 }, (_, i) => item(i, { metadata: metadata(i) })),
    );
    await loaded(held.memory, held.index, key);
    const FILTERS: FieldFilter[][] = [
      [{ field: 'color', conditions: [{ op: 'eq', value: 'red' }] }],
      [{ field: 'color', conditions: [{ op: 'ne', value: 'red' }] }],
      [{ field: 'color', conditions: [{ op: 'in', values: ['green', 7, 'Red'] }] }],
      [{ field: 'n', conditions: [{ op: 'eq', value: 3 }] }],
      [
        {
          field: 'n',
          conditions: [
            { op: 'gte', value: 10 },
            { op: 'lt', value: 20 },
          ],
        },
      ],
      [{ field: 'at', conditions: [{ op: 'gt', value: '2024-03' }] }],
      [{ field: 'at', conditions: [{ op: 'lte', value: '\uff5e' }] }],
      [{ field: 'at', conditions: [{ op: 'gte', value: 20240301 }] }],
      [{ field: 'flag', conditions: [{ op: 'eq', value: true }] }],
      [{ field: 'flag', conditions: [{ op: 'in', values: ['true'] }] }],
      [
        { field: 'color', conditions: [{ op: 'ne', value: 'blue' }] },
        { field: 'n', conditions: [{ op: 'lt', value: 30 }] },
      ],
      [{ field: 'nothing', conditions: [{ op: 'ne', value: 'x' }] }],
    ];
    const filtered = (filters: FieldFilter[]): SearchQuery => ({ ...queries(key)[0], limit: 40, filters });
    const hits = async (index: PostgresIndex) => {
      const out = [];
      for (const filters of FILTERS) out.push((await index.search(filtered(filters))).map((h) => [h.item_id, h.chunk, h.score]));
      // With a tenant and a collection too.
      const narrowed = { ...filtered(FILTERS[1]), tenant: 1, collections: ['docks'] };
      out.push((await index.search(narrowed)).map((h) => [h.item_id, h.chunk, h.score]));
      return out;
    };
    /** What the held replica finds, scored in memory: no statement reads postings. */
    const fromMemory = async () => {
      const statements = jest.spyOn(ds, 'query');
      const found = await hits(held.index);
      expect(statements.mock.calls.filter(([text]) => String(text).includes('posting_blocks'))).toEqual([]);
      statements.mockRestore();
      return found;
    };
    const expected = await hits(sql.index);
    // Each filter keeps some items and leaves others out (but the one no item's metadata fails).
    const counts = expected.map((found) => found.length);
    const all = (await sql.index.search(filtered([]))).length;
    expect(counts.slice(0, FILTERS.length - 1).every((n) => n > 0 && n < all)).toBe(true);
    expect(counts[FILTERS.length - 1]).toBe(all);
    expect(counts[FILTERS.length]).toBeGreaterThan(0);
    expect(counts[FILTERS.length]).toBeLessThan(counts[1]);
    expect(await fromMemory()).toEqual(expected);

    // Another replica gives some items other metadata: the held replica's next searches filter on the new.
    await writer.index.replace(
      scope,
      Array.from({ length: 12 }, (_, i) => item(i, { metadata: metadata(i, 3) })),
    );
    const after = await hits(sql.index);
    expect(after).not.toEqual(expected);
    expect(await fromMemory()).toEqual(after);
    // And so does the held replica itself, applying its own write as it commits.
    await held.index.replace(
      scope,
      Array.from({ length: 10 }, (_, i) => item(20 + i, { metadata: metadata(20 + i, 5) })),
    );
    const own = await hits(sql.index);
    expect(own).not.toEqual(after);
    expect(await fromMemory()).toEqual(own);
    expect(held.memory.holds(key)).toBe(true);

    // About 10 KB: the index is not held, and every search is answered in SQL, the same.
    const config = loadConfig(retrievalSettings, { BM25_DEPTH: '0', INDEX_PREPARATION_THREAD: 'false' });
    const memory = new MemoryIndexes(ds, { SEARCH_MEMORY_MB: 0.01 }, true);
    const small = new PostgresIndex(ds, config, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }), new BatchPreparer(config), memory, noMerges(ds));
    for (let i = 0; i < 20; i++) {
      expect(await found(small, key)).toEqual(await found(sql.index, key));
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(memory.holds(key)).toBe(false);
  });
});
