import { randomUUID } from 'node:crypto';
import { loadConfig, migrate, unpackText } from '@askdata/common';
import { DataSource } from 'typeorm';
import { bandOf } from '../../apps/retrieval/src/index/bands';
import { IndexVacuum } from '../../apps/retrieval/src/index/index-vacuum';
import { forwardEntry, unpackForward } from '../../apps/retrieval/src/index/forward-entries';
import { chunkNumber } from '../../apps/retrieval/src/index/batch-preparation';
import { BatchPreparer } from '../../apps/retrieval/src/index/batch-preparer';
import { MemoryIndexes } from '../../apps/retrieval/src/index/memory-indexes';
import { PostgresIndex } from '../../apps/retrieval/src/index/postgres-index';
import { chunkId } from '../../apps/retrieval/src/index/search-index';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';
import { BlockCounts1796300000000 } from '../../apps/retrieval/src/migrations/1796300000000-block-counts';
import { migrationsFrom, scratchPerTest } from './support/scratch-database';
import { memoryReplica, noMerges, sqlIndex } from './support/retrieval-index';

/**
 * An index written before postings were kept in blocks (one row per term and chunk), or before chunks were numbered,
 * is converted in place by the migrations: every posting lands in the block and band the service would look for,
 * naming its chunk by the chunk's new number, so the old items are found, replaced and removed exactly as new ones
 * are, and nothing needs re-ingesting.
 */
jest.setTimeout(60000);

describe('migrating the PostgreSQL index', () => {
  const scratch = scratchPerTest('askdata_migration_test');

  const migratedUpTo = (migration: string) => scratch.migratedUpTo(retrievalDatabase, migration);

  /** Every posting of the project, with its chunk's client item id: what the index says, whatever chunks are called. */
  async function postings(db: DataSource, project: string) {
    return await db.query<Array<{ term: string; band: number; block: number; item: string | null; impact: number }>>(
      `SELECT b.term, b.band, b.block::int AS block, c.client_item_id AS item, p.impact FROM retrieval.posting_blocks b
       CROSS JOIN LATERAL unnest(b.chunk_ids, b.impacts) AS p(chunk_id, impact)
       LEFT JOIN retrieval.chunks c ON c.id = p.chunk_id
       WHERE b.project_id = $1 ORDER BY 1, 5 DESC`,
      [project],
    );
  }

  /** Each term's document frequency, as the current service counts it: the postings of its blocks. */
  async function documentFrequencies(db: DataSource, project: string) {
    return await db.query<Array<{ term: string; df: number }>>(
      `SELECT term, sum(n)::int AS df FROM retrieval.posting_blocks WHERE project_id = $1 GROUP BY term HAVING sum(n) > 0 ORDER BY term`,
      [project],
    );
  }

  /** The item's rows as releases before packing wrote them: text and forward index in `text` and `terms`. */
  async function asWrittenBefore(db: DataSource, project: string, item: string) {
    const rows = await db.query<Array<{ id: string; packed: Buffer; forward: Buffer }>>(
      `SELECT id::text AS id, packed, forward FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = $2`,
      [project, item],
    );
    for (const r of rows) {
      const { names, entries } = unpackForward(r.forward);
      const terms = JSON.stringify(Object.fromEntries(names.map((name, k) => [name, entries[k]])));
      await db.query(`UPDATE retrieval.chunks SET text = $2, packed = NULL, terms = $3::jsonb, forward = NULL WHERE id = $1`, [r.id, unpackText(r.packed), terms]);
    }
  }

  /** The current service's index over the migrated database, and a search returning client item ids. */
  function serviceIndex(db: DataSource, project: string) {
    const config = loadConfig(retrievalSettings, {});
    const index = new PostgresIndex(db, config, new IndexVacuum(db, { INDEX_VACUUM_ROWS: 0 }), new BatchPreparer(config), new MemoryIndexes(db, config, false), noMerges(db));
    const scope = { projectId: project, tenancy: 'single' as const };
    const search = async (text: string) => (await index.search({ scope, text, limit: 10, collections: null, tenant: null, filters: [] })).map((h) => h.item_id);
    const replace = (itemId: string, client: string, text: string) =>
      index.replace(scope, [{ itemId, clientItemId: client, collection: 'default', tenant: null, url: null, metadata: {}, title: '', chunks: [text] }]);
    return { search, replace, index, scope };
  }

  it('converts postings rows into blocks that search, replacement and removal use', async () => {
    const old = await migratedUpTo('PostingBlocks1795500000000');
    const project = randomUUID();
    const [i1, i2] = [randomUUID(), randomUUID()];
    const [c1, c2] = [chunkId(i1, 0), chunkId(i2, 0)];
    const chunk = (id: string, item: string, client: string, text: string, length: number, terms: Record<string, [number, number]>) =>
      old.query(
        `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms)
         VALUES ($1, $2, 'default', NULL, $3, $4, 0, $5, NULL, '{}', $6, $7)`,
        [id, project, item, client, text, length, JSON.stringify(terms)],
      );
    await chunk(c1, i1, 'one', 'Apple apple tree.', 3, { appl: [2, 15000], tree: [1, 9000] });
    await chunk(c2, i2, 'two', 'An apple.', 1, { appl: [1, 10000] });
    await old.query(
      `INSERT INTO retrieval.postings (project_id, term, impact, chunk_id, tenant, collection)
       VALUES ($1, 'appl', 15000, $2, NULL, 'default'), ($1, 'tree', 9000, $2, NULL, 'default'), ($1, 'appl', 10000, $3, NULL, 'default')`,
      [project, c1, c2],
    );
    await old.query(`INSERT INTO retrieval.terms (project_id, term, df) VALUES ($1, 'appl', 2), ($1, 'tree', 1)`, [project]);
    await old.query(`INSERT INTO retrieval.stats (project_id, chunk_count, total_length) VALUES ($1, 2, 4)`, [project]);
    await old.destroy();

    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'PostingBlocks1795500000000'));
    expect(await postings(ds, project)).toEqual([
      { term: 'appl', band: bandOf(15000), block: 0, item: 'one', impact: 15000 },
      { term: 'appl', band: bandOf(10000), block: 0, item: 'two', impact: 10000 },
      { term: 'tree', band: bandOf(9000), block: 0, item: 'one', impact: 9000 },
    ]);

    const { search, replace } = serviceIndex(ds, project);
    expect(await search('apples')).toEqual(['one', 'two']);

    await replace(i1, 'one', 'Bananas only.');
    expect(await search('apples')).toEqual(['two']);
    expect(await search('tree')).toEqual([]);
    expect(await search('banana')).toEqual(['one']);
    expect((await postings(ds, project)).filter((p) => p.block === 0)).toEqual([{ term: 'appl', band: bandOf(10000), block: 0, item: 'two', impact: 10000 }]);
    const df = await documentFrequencies(ds, project);
    expect(df).toEqual([
      { term: 'appl', df: 1 },
      { term: 'banana', df: 1 },
    ]);
    expect(await ds.query(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE cardinality(chunk_ids) = 0`)).toEqual([{ n: 0 }]);
  });

  it('numbers chunks indexed in blocks, keeping each block in order, and new chunks never meet them', async () => {
    const old = await migratedUpTo('ChunkNumbers1795610000000');
    const project = randomUUID();
    const items = [randomUUID(), randomUUID(), randomUUID()];
    const ids = items.map((i) => chunkId(i, 0));
    const clients = ['alpha', 'beta', 'gamma'];
    // Two index batches (blocks 7 and 8): alpha and beta in the first, gamma in the second.
    const texts = ['Cedar cedar cedar grove.', 'A cedar chest, a chest.', 'Cedar and oak.'];
    const terms: Array<Record<string, [number, number]>> = [
      { cedar: [3, 16000], grove: [1, 9000] },
      { cedar: [1, 15000], chest: [2, 15000] },
      { cedar: [1, 12000], oak: [1, 12000] },
    ];
    for (let i = 0; i < 3; i++) {
      await old.query(
        `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms, block)
         VALUES ($1, $2, 'default', NULL, $3, $4, 0, $5, NULL, '{}', $6, $7, $8)`,
        [ids[i], project, items[i], clients[i], texts[i], [4, 3, 2][i], JSON.stringify(terms[i]), i < 2 ? 7 : 8],
      );
    }
    const block = (term: string, impact: number, blockNo: number, chunks: number[]) =>
      old.query(
        `INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants)
         VALUES ($1, $2, $3, $4, 'default', $5::uuid[], $6::int[], '{}')`,
        [project, term, bandOf(impact), blockNo, chunks.map((c) => ids[c]), chunks.map((c) => terms[c][term][1])],
      );
    // One block of three postings would show a reordering or a misplaced number; bands are as the service makes them.
    expect(bandOf(16000)).toBe(bandOf(15000));
    await block('cedar', 16000, 7, [0, 1]);
    await block('grove', 9000, 7, [0]);
    await block('chest', 15000, 7, [1]);
    await block('cedar', 12000, 8, [2]);
    await block('oak', 12000, 8, [2]);
    await old.query(`INSERT INTO retrieval.terms (project_id, term, df) VALUES ($1, 'cedar', 3), ($1, 'grove', 1), ($1, 'chest', 1), ($1, 'oak', 1)`, [project]);
    await old.query(`INSERT INTO retrieval.stats (project_id, chunk_count, total_length) VALUES ($1, 3, 9)`, [project]);
    await old.query(`SELECT setval('retrieval.posting_block_seq', 8)`);
    const before = await postings(old, project);
    await old.destroy();

    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'ChunkNumbers1795610000000'));
    expect(await postings(ds, project)).toEqual(before);
    // Analyse leaves the chunks' texts and forward indexes alone, and keeps the columns plans use.
    const targets = await ds.query<Array<{ column: string; target: number }>>(
      `SELECT attname AS column, attstattarget AS target FROM pg_attribute
       WHERE attrelid = 'retrieval.chunks'::regclass AND attname IN ('text', 'terms', 'item_id') ORDER BY attname`,
    );
    expect(targets).toEqual([
      { column: 'item_id', target: -1 },
      { column: 'terms', target: 0 },
      { column: 'text', target: 0 },
    ]);
    expect(before.map((p) => p.item)).toEqual(['alpha', 'beta', 'gamma', 'beta', 'alpha', 'gamma']);
    const numbers = await ds.query<Array<{ id: string }>>(`SELECT id::text AS id FROM retrieval.chunks WHERE project_id = $1`, [project]);
    expect(numbers.every((c) => BigInt(c.id) < 0n)).toBe(true);
    expect(new Set(numbers.map((c) => c.id)).size).toBe(3);

    const { search, replace } = serviceIndex(ds, project);
    expect(await search('cedar')).toEqual(['alpha', 'gamma', 'beta']);
    // A new item is numbered from its batch's block; an old one replaced loses exactly its own postings.
    await replace(randomUUID(), 'delta', 'Cedar.');
    await replace(items[0], 'alpha', 'Oak only.');
    const [delta] = await ds.query<Array<{ id: string; block: string }>>(
      `SELECT id::text AS id, block::text AS block FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = 'delta'`,
      [project],
    );
    expect(delta.id).toBe(chunkNumber(delta.block, 0));
    expect(BigInt(delta.block)).toBeGreaterThan(8n);
    expect(await search('cedar')).toEqual(['delta', 'gamma', 'beta']);
    expect(await search('grove')).toEqual([]);
    expect(await search('oak')).toEqual(['alpha', 'gamma']);
    const cedar = (await postings(ds, project)).filter((p) => p.term === 'cedar' && p.block === 7);
    expect(cedar.map((p) => p.item)).toEqual(['beta']);
    const df = await documentFrequencies(ds, project);
    expect(df).toEqual([
      { term: 'cedar', df: 3 },
      { term: 'chest', df: 1 },
      { term: 'oak', df: 2 },
    ]);
  });

  it('packs each forward-index entry into one integer: scores, replacement and removal are as before', async () => {
    const old = await migratedUpTo('CompactForwardIndex1795800000000');
    const project = randomUUID();
    const items = [randomUUID(), randomUUID(), randomUUID()];
    const clients = ['alpha', 'beta', 'gamma'];
    const texts = ['Cedar cedar cedar grove.', 'A cedar chest, a chest.', 'Oak.'];
    const lengths = [4, 3, 1];
    // A pair [tf, impact] per term, as the index wrote them; gamma's term frequency is beyond what an entry holds.
    const terms: Array<Record<string, [number, number]>> = [{ cedar: [3, 16000], grove: [1, 9000] }, { cedar: [1, 15000], chest: [2, 15000] }, { oak: [20000, 18999] }];
    const numbers = ['100', '101', '102'];
    for (let i = 0; i < 3; i++) {
      await old.query(
        `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms, block)
         VALUES ($1, $2, 'default', NULL, $3, $4, 0, $5, NULL, '{}', $6, $7, 9)`,
        [numbers[i], project, items[i], clients[i], texts[i], lengths[i], JSON.stringify(terms[i])],
      );
    }
    const block = (term: string, impact: number, chunks: number[]) =>
      old.query(
        `INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants)
         VALUES ($1, $2, $3, 9, 'default', $4::bigint[], $5::int[], '{}')`,
        [project, term, bandOf(impact), chunks.map((c) => numbers[c]), chunks.map((c) => terms[c][term][1])],
      );
    await block('cedar', 16000, [0, 1]);
    await block('grove', 9000, [0]);
    await block('chest', 15000, [1]);
    await block('oak', 18999, [2]);
    await old.query(`INSERT INTO retrieval.terms (project_id, term, df) VALUES ($1, 'cedar', 2), ($1, 'grove', 1), ($1, 'chest', 1), ($1, 'oak', 1)`, [project]);
    await old.query(`INSERT INTO retrieval.stats (project_id, chunk_count, total_length) VALUES ($1, 3, 8)`, [project]);
    await old.query(`SELECT setval('retrieval.posting_block_seq', 9)`);
    await old.destroy();

    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'CompactForwardIndex1795800000000'));
    // The project's index is recorded as written by the English-only analyzer (version 1), in PostgreSQL under the
    // project's own id: the service rebuilds it.
    expect(await ds.query(`SELECT live_key, backend, analyzer, build_status FROM retrieval.project_indexes WHERE project_id = $1`, [project])).toEqual([
      { live_key: project, backend: 'postgres', analyzer: 1, build_status: 'none' },
    ]);
    // The chunks indexed before languages were kept were analyzed as English, and their project is counted so.
    expect(await ds.query(`SELECT DISTINCT language FROM retrieval.chunks WHERE project_id = $1`, [project])).toEqual([{ language: 'en' }]);
    expect(await ds.query(`SELECT language, chunks::int FROM retrieval.project_languages WHERE project_id = $1`, [project])).toEqual([{ language: 'en', chunks: 3 }]);
    const migrated = await ds.query<Array<{ item: string; terms: Record<string, number> }>>(
      `SELECT client_item_id AS item, terms FROM retrieval.chunks WHERE project_id = $1 ORDER BY 1`,
      [project],
    );
    expect(migrated).toEqual([
      { item: 'alpha', terms: { cedar: forwardEntry(3, 16000), grove: forwardEntry(1, 9000) } },
      { item: 'beta', terms: { cedar: forwardEntry(1, 15000), chest: forwardEntry(2, 15000) } },
      { item: 'gamma', terms: { oak: forwardEntry(16383, 18999) } },
    ]);
    expect(forwardEntry(16383, 110000)).toBeLessThanOrEqual(2 ** 31 - 1);

    // Scores are BM25 from the entries' term frequencies (k1 0.9, b 0.4), with the project's statistics.
    const config = loadConfig(retrievalSettings, {});
    const memory = new MemoryIndexes(ds, config, false);
    const index = new PostgresIndex(ds, config, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }), new BatchPreparer(config), memory, noMerges(ds));
    const scope = { projectId: project, tenancy: 'single' as const };
    const hits = await index.search({ scope, text: 'cedar chest', limit: 10, collections: null, tenant: null, filters: [] });
    // Held in memory (loaded after that first search), the migrated index scores the same.
    for (let i = 0; i < 100 && !memory.holds(project); i++) await new Promise((r) => setTimeout(r, 20));
    expect(memory.holds(project)).toBe(true);
    const fromMemory = await index.search({ scope, text: 'cedar chest', limit: 10, collections: null, tenant: null, filters: [] });
    expect(fromMemory.map((h) => [h.item_id, h.score])).toEqual(hits.map((h) => [h.item_id, h.score]));
    const bm25 = (tf: number, length: number, df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5)) * ((tf * 1.9) / (tf + 0.9 * (0.6 + (0.4 * length) / (8 / 3))));
    const expected = [
      { item_id: 'beta', score: bm25(1, 3, 2) + bm25(2, 3, 1) },
      { item_id: 'alpha', score: bm25(3, 4, 2) },
    ];
    expect(hits.map((h) => h.item_id)).toEqual(expected.map((e) => e.item_id));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i].score, 3));

    // Removal finds each old posting's block and band from the entry's impact.
    await index.replace(scope, [{ itemId: items[0], clientItemId: 'alpha', collection: 'default', tenant: null, url: null, metadata: {}, title: '', chunks: ['Chest.'] }]);
    await index.replace(scope, [{ itemId: items[2], clientItemId: 'gamma', collection: 'default', tenant: null, url: null, metadata: {}, title: '', chunks: [] }]);
    const left = await ds.query<unknown[]>(`SELECT term, cardinality(chunk_ids)::int AS n FROM retrieval.posting_blocks WHERE project_id = $1 AND block = 9 ORDER BY 1`, [project]);
    expect(left).toEqual([
      { term: 'cedar', n: 1 },
      { term: 'chest', n: 1 },
    ]);
    const df = await documentFrequencies(ds, project);
    expect(df).toEqual([
      { term: 'cedar', df: 1 },
      { term: 'chest', df: 2 },
    ]);
    const chest = await index.search({ scope, text: 'chest', limit: 10, collections: null, tenant: null, filters: [] });
    expect(chest.map((h) => h.item_id).sort()).toEqual(['alpha', 'beta']);

    // And back: the previous releases read pairs again.
    for (let n = migrationsFrom(retrievalDatabase, 'CompactForwardIndex1795800000000').length; n > 0; n--) await ds.undoLastMigration();
    const pairs = await ds.query<unknown[]>(`SELECT terms FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = 'beta'`, [project]);
    expect(pairs).toEqual([{ terms: { cedar: [1, 15000], chest: [2, 15000] } }]);
  });

  it('records every project indexed before as written by analyzer version 1, in the backend that holds it', async () => {
    const old = await migratedUpTo('IndexRebuilds1796000000000');
    const [inPostgres, inQdrant] = [randomUUID(), randomUUID()];
    await old.query(`INSERT INTO retrieval.stats (project_id, chunk_count, total_length) VALUES ($1, 1, 3)`, [inPostgres]);
    await old.query(`INSERT INTO retrieval.project_languages (project_id, language, chunks) VALUES ($1, 'en', 1), ($2, 'en', 5), ($2, 'de', 2)`, [inPostgres, inQdrant]);
    await old.destroy();
    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'IndexRebuilds1796000000000'));
    expect(await ds.query(`SELECT project_id, live_key, backend, analyzer FROM retrieval.project_indexes ORDER BY backend`)).toEqual([
      { project_id: inPostgres, live_key: inPostgres, backend: 'postgres', analyzer: 1 },
      { project_id: inQdrant, live_key: inQdrant, backend: 'qdrant', analyzer: 1 },
    ]);
  });

  it("counts each block's postings, so document frequencies come from the blocks; the release before still writes its blocks", async () => {
    const old = await migratedUpTo('BlockCounts1796300000000');
    const [project, other] = [randomUUID(), randomUUID()];
    // As the release before wrote them: blocks without counts, and document frequencies in `terms`.
    const block = (db: DataSource, p: string, term: string, blockNo: number, ids: number[]) =>
      db.query(
        `INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants)
         VALUES ($1, $2, 3, $3, 'default', $4::bigint[], $5::int[], '{}')`,
        [p, term, blockNo, ids, ids.map(() => 9000)],
      );
    await block(old, project, 'cedar', 1, [11, 12, 13]);
    await block(old, project, 'cedar', 2, [21]);
    await block(old, project, 'oak', 1, [12]);
    for (let b = 1; b <= 7; b++) await block(old, other, `term${b}`, b, [b, b + 100]);
    await old.query(`INSERT INTO retrieval.terms (project_id, term, df) VALUES ($1, 'cedar', 4), ($1, 'oak', 1)`, [project]);
    await old.destroy();
    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'BlockCounts1796300000000'));
    expect(await documentFrequencies(ds, project)).toEqual([
      { term: 'cedar', df: 4 },
      { term: 'oak', df: 1 },
    ]);

    // A migration cut short is finished by the next run, which counts what is left, a slice at a time.
    await ds.query(`UPDATE retrieval.posting_blocks SET n = NULL WHERE term IN ('cedar', 'term2', 'term5', 'term7')`);
    expect(await ds.query(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE n IS NULL`)).toEqual([{ n: 5 }]);
    const runner = ds.createQueryRunner();
    try {
      await new BlockCounts1796300000000(2).up(runner);
    } finally {
      await runner.release();
    }
    expect(await ds.query(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE n IS DISTINCT FROM cardinality(chunk_ids)`)).toEqual([{ n: 0 }]);
    expect((await documentFrequencies(ds, other)).map((t) => t.df)).toEqual([2, 2, 2, 2, 2, 2, 2]);

    // A replica of the release before, during a rolling upgrade, writes blocks without counting and removes
    // postings without counting again: the database counts them.
    await block(ds, project, 'oak', 2, [21, 22]);
    await ds.query(`UPDATE retrieval.posting_blocks SET chunk_ids = '{11}', impacts = '{9000}' WHERE project_id = $1 AND term = 'cedar' AND block = 1`, [project]);
    expect(await documentFrequencies(ds, project)).toEqual([
      { term: 'cedar', df: 2 },
      { term: 'oak', df: 3 },
    ]);
    // The current service counts as it writes: its count is taken as given, not counted again.
    await ds.query(`UPDATE retrieval.posting_blocks SET chunk_ids = '{}', impacts = '{}', n = 7 WHERE project_id = $1 AND term = 'cedar' AND block = 2`, [project]);
    expect(await ds.query(`SELECT n FROM retrieval.posting_blocks WHERE project_id = $1 AND term = 'cedar' AND block = 2`, [project])).toEqual([{ n: 7 }]);
    await ds.query(`UPDATE retrieval.posting_blocks SET n = 0 WHERE project_id = $1 AND term = 'cedar' AND block = 2`, [project]);

    // And back: the release before finds its document frequencies counted from the blocks.
    for (const _ of migrationsFrom(retrievalDatabase, 'BlockCounts1796300000000')) await ds.undoLastMigration();
    expect(await ds.query(`SELECT term, df FROM retrieval.terms WHERE project_id = $1 ORDER BY term`, [project])).toEqual([
      { term: 'cedar', df: 1 },
      { term: 'oak', df: 3 },
    ]);
    expect(
      await ds.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'retrieval' AND table_name = 'posting_blocks' AND column_name = 'n'`),
    ).toEqual([{ n: 0 }]);
  });

  it('compresses chunk rows with LZ4 where the server has it, so a row takes half the room, and finds them the same', async () => {
    const old = await migratedUpTo('CompressedChunks1796500000000');
    const project = randomUUID();
    // A chunk of the release before: a row of about 3 KB kept whole.
    const text = Array.from({ length: 150 }, (_, i) => `word${i % 97}x${i}`).join(' ');
    // Written by this release's code, its text and forward index then kept as that release did (not packed).
    await old.query(`ALTER TABLE retrieval.chunks ADD packed bytea, ADD forward bytea, ALTER COLUMN text DROP NOT NULL, ALTER COLUMN terms DROP NOT NULL`);
    await serviceIndex(old, project).replace(randomUUID(), 'before', `${text} cedar`);
    await asWrittenBefore(old, project, 'before');
    await old.query(`ALTER TABLE retrieval.chunks DROP COLUMN packed, DROP COLUMN forward, ALTER COLUMN text SET NOT NULL, ALTER COLUMN terms SET NOT NULL`);
    await old.destroy();
    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'CompressedChunks1796500000000'));
    const index = serviceIndex(ds, project);
    // Written as the releases between this migration and packing wrote it.
    await index.replace(randomUUID(), 'after', `${text} cedar`);
    await asWrittenBefore(ds, project, 'after');
    const rows = await ds.query<Array<{ item: string; terms: string | null; text: string | null; size: number }>>(
      `SELECT client_item_id AS item, pg_column_compression(terms) AS terms, pg_column_compression(text) AS text, pg_column_size(c.*) AS size
       FROM retrieval.chunks c WHERE project_id = $1 ORDER BY client_item_id`,
      [project],
    );
    expect(rows.map((r) => [r.item, r.terms])).toEqual([
      ['after', 'lz4'],
      ['before', null],
    ]);
    expect(rows[0].size).toBeLessThan(rows[1].size / 2);
    expect((await index.search('cedar')).sort()).toEqual(['after', 'before']);

    // And back: new rows are kept whole again. The release before writes one (its forward index a value of its own).
    for (const _ of migrationsFrom(retrievalDatabase, 'CompressedChunks1796500000000')) await ds.undoLastMigration();
    await ds.query(
      `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms, block)
       SELECT id + 1, project_id, collection, tenant, $2, 'undone', n, text, url, metadata, length, (terms::text)::jsonb, block
       FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = 'before'`,
      [project, randomUUID()],
    );
    const [undone] = await ds.query<Array<{ terms: string | null }>>(
      `SELECT pg_column_compression(terms) AS terms FROM retrieval.chunks WHERE project_id = $1 AND client_item_id = 'undone'`,
      [project],
    );
    expect(undone.terms).toBeNull();
  });

  it('packs the texts of chunks written from now on, shows those written before as they were, and undone gives every row its text', async () => {
    const old = await migratedUpTo('PackedChunkText1796700000000');
    const project = randomUUID();
    const prose = 'The cedar by the harbour is older than the town around it, and its bark is grey. '.repeat(6);
    const before = { item: randomUUID(), text: `${prose} Written before.` };
    await old.query(
      `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms, block)
       VALUES (1, $1, 'default', NULL, $2, 'before', 0, $3, NULL, '{}', 90, '{}', 0)`,
      [project, before.item, before.text],
    );
    await old.destroy();

    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'PackedChunkText1796700000000'));
    const { index, replace, scope } = serviceIndex(ds, project);
    const after = { item: randomUUID(), text: `${prose} Written after.` };
    await replace(after.item, 'after', after.text);
    const forms = await ds.query<Array<{ item: string; text: boolean; packed: number | null }>>(
      `SELECT client_item_id AS item, text IS NOT NULL AS text, octet_length(packed) AS packed FROM retrieval.chunks WHERE project_id = $1 ORDER BY client_item_id`,
      [project],
    );
    expect(forms).toEqual([
      { item: 'after', text: false, packed: expect.any(Number) },
      { item: 'before', text: true, packed: null },
    ]);
    expect(forms[0].packed).toBeLessThan(Buffer.byteLength(after.text) / 2);
    // Read back whole (as an index rebuild reads them), and as a search shows them.
    expect(Object.fromEntries((await index.read(project, [before.item, after.item])).map((i) => [i.clientItemId, i.chunks]))).toEqual({
      before: [before.text],
      after: [after.text],
    });
    const [hit] = await index.search({ scope, text: 'written after', limit: 1, collections: null, tenant: null, filters: [] });
    expect([hit.item_id, hit.text]).toEqual(['after', after.text]);

    // Undone down to the release before packed texts (the packed forward index first).
    await ds.undoLastMigration();
    await ds.undoLastMigration();
    expect(await ds.query(`SELECT client_item_id AS item, text FROM retrieval.chunks WHERE project_id = $1 ORDER BY client_item_id`, [project])).toEqual([
      { item: 'after', text: after.text },
      { item: 'before', text: before.text },
    ]);
    expect(
      await ds.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'retrieval' AND table_name = 'chunks' AND column_name = 'packed'`),
    ).toEqual([{ n: 0 }]);
  });

  it('packs the forward indexes of chunks written from now on; rows written before are scored, held in memory and removed alike; undone gives every row its terms', async () => {
    const old = await migratedUpTo('PackedForwardIndex1796800000000');
    await old.destroy();
    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, 'PackedForwardIndex1796800000000'));
    const project = randomUUID();
    const scope = { projectId: project, tenancy: 'single' as const };
    const { index } = sqlIndex(ds);
    const ids = { grove: randomUUID(), chest: randomUUID(), oak: randomUUID() };
    const texts = {
      grove: 'A cedar grove by the harbour, the cedar trees older than the town.',
      chest: 'A cedar chest in the hall holds linen and letters.',
      oak: 'An oak and a cedar stand at the gate of the grove.',
    };
    const item = (key: keyof typeof ids, text = texts[key]) => ({
      itemId: ids[key],
      clientItemId: key,
      collection: 'default',
      tenant: null,
      url: null,
      metadata: {},
      title: '',
      chunks: [text],
    });
    await index.replace(scope, [item('grove'), item('chest'), item('oak')]);
    const questions = ['cedar', 'grove', 'cedar grove harbour', 'linen'];
    const scored = async (idx: PostgresIndex) => {
      const out: Array<Array<[string, number]>> = [];
      for (const text of questions) out.push((await idx.search({ scope, text, limit: 10, collections: null, tenant: null, filters: [] })).map((h) => [h.item_id, h.score]));
      return out;
    };
    const written = await scored(index);
    expect(written[0].map(([item]) => item).sort()).toEqual(['chest', 'grove', 'oak']);

    const rows = await ds.query<Array<{ id: string; item: string; forward: Buffer | null; terms: unknown }>>(
      `SELECT id::text AS id, client_item_id AS item, forward, terms FROM retrieval.chunks WHERE project_id = $1 ORDER BY client_item_id`,
      [project],
    );
    expect(rows.map((r) => [r.item, r.forward !== null, r.terms])).toEqual([
      ['chest', true, null],
      ['grove', true, null],
      ['oak', true, null],
    ]);
    const terms = rows.map((r) => {
      const { names, entries } = unpackForward(r.forward!);
      return Object.fromEntries(names.map((name, k) => [name, entries[k]]));
    });
    expect(terms[1]).toEqual(expect.objectContaining({ cedar: expect.any(Number), grove: expect.any(Number), harbour: expect.any(Number) }));
    expect(Math.floor(terms[1].cedar / 2 ** 17)).toBe(2);
    for (const [i, r] of rows.entries()) {
      const [{ size }] = await ds.query<Array<{ size: number }>>(`SELECT pg_column_size($1::jsonb) AS size`, [JSON.stringify(terms[i])]);
      expect(r.forward!.length).toBeLessThan(size / 2);
    }

    // The grove and the oak as the release before wrote them: their forward index as jsonb.
    for (const i of [1, 2]) await ds.query(`UPDATE retrieval.chunks SET forward = NULL, terms = $2::jsonb WHERE id = $1`, [rows[i].id, JSON.stringify(terms[i])]);
    expect(await scored(index)).toEqual(written);
    const held = memoryReplica(ds, 64, { shared: false });
    for (let i = 0; i < 200 && !held.memory.holds(project); i++) {
      await held.index.search({ scope, text: 'cedar', limit: 1, collections: null, tenant: null, filters: [] });
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(held.memory.holds(project)).toBe(true);
    expect(await scored(held.index)).toEqual(written);

    // Replaced, the old grove's postings go with it; the chest (packed) is removed the same way.
    await index.replace(scope, [item('grove', 'A birch wood by the harbour.')]);
    await index.replace(scope, [{ ...item('chest'), chunks: [] }]);
    const left = await postings(ds, project);
    expect(left.filter((p) => p.item === null)).toEqual([]);
    expect([...new Set(left.filter((p) => p.term === 'cedar').map((p) => p.item))]).toEqual(['oak']);
    expect((await scored(index)).map((hits) => hits.map(([item]) => item))).toEqual([['oak'], ['oak'], ['oak', 'grove'], []]);

    await ds.undoLastMigration();
    const undone = await ds.query<Array<{ item: string; terms: Record<string, number> }>>(
      `SELECT client_item_id AS item, terms FROM retrieval.chunks WHERE project_id = $1 ORDER BY client_item_id`,
      [project],
    );
    expect(undone.map((r) => r.item)).toEqual(['grove', 'oak']);
    expect(undone[1].terms).toEqual(terms[2]);
    expect(Object.keys(undone[0].terms).sort()).toEqual(expect.arrayContaining(['birch', 'harbour', 'wood']));
    expect(
      await ds.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'retrieval' AND table_name = 'chunks' AND column_name = 'forward'`),
    ).toEqual([{ n: 0 }]);
  });
});
