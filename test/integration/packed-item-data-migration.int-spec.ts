import { randomUUID } from 'node:crypto';
import { BusClient, migrate } from '@askdata/common';
import { catalogDatabase } from '../../apps/catalog/src/catalog.database';
import { ItemsService } from '../../apps/catalog/src/items/items.service';
import { migrationsFrom, scratchPerTest } from './support/scratch-database';

/**
 * Catalog's items stored before their data was packed read back as they were; upserted again, they are packed. Undone,
 * every item's data is back in its `data` column, whichever form it had.
 */
jest.setTimeout(60000);

const MIGRATION = 'PackedItemData1796700000000';
const announcing = { publish: () => Promise.resolve() } as unknown as BusClient;

describe("packing catalog items' data", () => {
  const scratch = scratchPerTest('askdata_packed_item_data_test');

  it('reads rows stored before as they were, packs them when upserted again, and gives every row its data back when undone', async () => {
    const old = await scratch.migratedUpTo(catalogDatabase, MIGRATION);
    const projectId = randomUUID();
    const collection = randomUUID();
    const before = { title: 'Stored before', text: 'Written by the release before. '.repeat(20), n: [1, 2.5] };
    await old.query(`INSERT INTO catalog.collections (id, project_id, slug, name, source, created_at, updated_at) VALUES ($1, $2, 'default', 'Default', 'api', now(), now())`, [
      collection,
      projectId,
    ]);
    for (const itemId of ['kept', 'upserted']) {
      await old.query(`INSERT INTO catalog.items (id, project_id, collection_id, item_id, data, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())`, [
        randomUUID(),
        projectId,
        collection,
        itemId,
        JSON.stringify(before),
      ]);
    }
    await old.destroy();

    const ds = await scratch.opened(catalogDatabase);
    expect(await migrate(ds, 'catalog')).toEqual(migrationsFrom(catalogDatabase, MIGRATION));
    const service = new ItemsService(ds, announcing);
    const scope = { projectId, tenancy: 'single' as const };
    const after = { title: 'Upserted after', text: 'Written by this release. '.repeat(20) };
    await service.applyBatch({ scope, upsertId: randomUUID(), collection: null, items: [{ id: 'upserted', data: after, metadata: {}, tenant: null, url: null }] });
    const listed = async () =>
      Object.fromEntries((await service.list({ scope, page: 1, perPage: 10, collection: null, tenant: null, itemId: null })).data.map((i) => [i.item_id, i.data]));
    expect(await listed()).toEqual({ kept: before, upserted: after });
    const forms = async () =>
      Object.fromEntries(
        (
          await ds.query<Array<{ item_id: string; data: boolean; packed: boolean }>>(
            'SELECT item_id, data IS NOT NULL AS data, packed IS NOT NULL AS packed FROM catalog.items WHERE project_id = $1',
            [projectId],
          )
        ).map((r) => [r.item_id, { data: r.data, packed: r.packed }]),
      );
    expect(await forms()).toEqual({ kept: { data: true, packed: false }, upserted: { data: false, packed: true } });

    for (const _ of migrationsFrom(catalogDatabase, MIGRATION)) await ds.undoLastMigration();
    const columns = await ds.query<Array<{ column_name: string; is_nullable: string }>>(
      `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'items' AND column_name IN ('data', 'packed')`,
    );
    expect(columns).toEqual([{ column_name: 'data', is_nullable: 'NO' }]);
    const rows = await ds.query<Array<{ item_id: string; data: unknown }>>('SELECT item_id, data FROM catalog.items WHERE project_id = $1 ORDER BY item_id', [projectId]);
    expect(rows).toEqual([
      { item_id: 'kept', data: before },
      { item_id: 'upserted', data: after },
    ]);
  });
});
