import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createDataSource, loadConfig, migrate } from '@askdata/common';
import { DataSource } from 'typeorm';
import { bandOf } from '../../apps/retrieval/src/index/bands';
import { IndexVacuum } from '../../apps/retrieval/src/index/index-vacuum';
import { PostgresIndex } from '../../apps/retrieval/src/index/postgres-index';
import { chunkId } from '../../apps/retrieval/src/index/search-index';
import { MIGRATIONS } from '../../apps/retrieval/src/migrations';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';

/**
 * An index written before postings were kept in blocks (one row per term and chunk) is converted in place by the
 * migration: every posting lands in the block and band the service would look for, so the old items are found,
 * replaced and removed exactly as new ones are, and nothing needs re-ingesting.
 */
jest.setTimeout(60000);

const PG = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('migrating the PostgreSQL index to posting blocks', () => {
  const name = `askdata_migration_test_${process.pid}`;
  const url = PG.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  let admin: Client;
  let ds: DataSource;
  beforeAll(async () => {
    admin = new Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
  });
  afterAll(async () => {
    await ds?.destroy();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it('converts postings rows into blocks that search, replacement and removal use', async () => {
    const before = MIGRATIONS.findIndex((m) => m.name === 'PostingBlocks1795500000000');
    expect(before).toBeGreaterThan(0);
    const old = createDataSource({ ...retrievalDatabase, entities: [], migrations: MIGRATIONS.slice(0, before) }, { url, poolSize: 2, applicationName: 'migration-test' });
    await old.initialize();
    await migrate(old, 'retrieval');
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

    ds = createDataSource(retrievalDatabase, { url, poolSize: 2, applicationName: 'migration-test' });
    await ds.initialize();
    expect(await migrate(ds, 'retrieval')).toEqual(['PostingBlocks1795500000000']);
    const postings = async () =>
      (await ds.query(
        `SELECT b.term, b.band, b.block::int AS block, p.chunk_id, p.impact FROM retrieval.posting_blocks b
         CROSS JOIN LATERAL unnest(b.chunk_ids, b.impacts) AS p(chunk_id, impact) WHERE b.project_id = $1 ORDER BY 1, 5 DESC`,
        [project],
      )) as Array<{ term: string; band: number; block: number; chunk_id: string; impact: number }>;
    expect(await postings()).toEqual([
      { term: 'appl', band: bandOf(15000), block: 0, chunk_id: c1, impact: 15000 },
      { term: 'appl', band: bandOf(10000), block: 0, chunk_id: c2, impact: 10000 },
      { term: 'tree', band: bandOf(9000), block: 0, chunk_id: c1, impact: 9000 },
    ]);

    const config = loadConfig(retrievalSettings, {});
    const index = new PostgresIndex(ds, config, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }));
    const scope = { projectId: project, tenancy: 'single' as const };
    const search = async (text: string) =>
      (await index.search({ scope, text, limit: 10, collections: null, tenant: null, filters: [] })).map((h) => h.item_id);
    expect(await search('apples')).toEqual(['one', 'two']);

    await index.replace(scope, [
      { itemId: i1, clientItemId: 'one', collection: 'default', tenant: null, url: null, metadata: {}, title: '', chunks: ['Bananas only.'] },
    ]);
    expect(await search('apples')).toEqual(['two']);
    expect(await search('tree')).toEqual([]);
    expect(await search('banana')).toEqual(['one']);
    expect((await postings()).filter((p) => p.block === 0)).toEqual([
      { term: 'appl', band: bandOf(10000), block: 0, chunk_id: c2, impact: 10000 },
    ]);
    const df = (await ds.query(`SELECT term, df FROM retrieval.terms WHERE project_id = $1 ORDER BY term`, [project])) as unknown[];
    expect(df).toEqual([{ term: 'appl', df: 1 }, { term: 'banana', df: 1 }]);
    expect(await ds.query(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE cardinality(chunk_ids) = 0`)).toEqual([{ n: 0 }]);
  });
});
