import { randomUUID } from 'node:crypto';
import { migrate } from '@askdata/common';
import { catalogDatabase } from '../../apps/catalog/src/catalog.database';
import { CollectionEntity } from '../../apps/catalog/src/collections/collection.entity';
import { ItemEntity } from '../../apps/catalog/src/items/item.entity';
import { ingestionDatabase } from '../../apps/ingestion/src/ingestion.database';
import { ChunkEntity } from '../../apps/retrieval/src/index/index.entities';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';
import { migrationsFrom, scratchPerTest } from './support/scratch-database';

/**
 * Items, collections, chunks and batches not yet applied stored with a code withdrawn from ISO 639-1 before such codes were refused read back
 * with the code that replaced it (`iw` -> `he`, `in` -> `id`, `mo` -> `ro`, ...) once migrated; current codes and
 * unknown languages (null) are left as they were, and a project's chunk counts per language are merged.
 */
jest.setTimeout(60000);

const MIGRATION = 'CurrentLanguageCodes1796200000000';

describe('migrating withdrawn language codes to current ones', () => {
  const scratch = scratchPerTest('askdata_language_codes_migration_test');

  it('rewrites the language of catalog items and collections', async () => {
    const old = await scratch.migratedUpTo(catalogDatabase, MIGRATION);
    const project = randomUUID();
    const [hebrew, plain] = [randomUUID(), randomUUID()];
    await old.query(
      `INSERT INTO catalog.collections (id, project_id, slug, name, source, language, created_at, updated_at)
       VALUES ($1, $3, 'hebrew', 'Hebrew', 'api', 'iw', now(), now()), ($2, $3, 'plain', 'Plain', 'api', NULL, now(), now())`,
      [hebrew, plain, project],
    );
    const item = (collection: string, itemId: string, language: string | null) =>
      old.query(`INSERT INTO catalog.items (id, project_id, collection_id, item_id, data, language, created_at, updated_at) VALUES ($1, $2, $3, $4, '{}', $5, now(), now())`, [
        randomUUID(),
        project,
        collection,
        itemId,
        language,
      ]);
    for (const [itemId, language] of [
      ['iw', 'iw'],
      ['in', 'in'],
      ['ji', 'ji'],
      ['jw', 'jw'],
      ['mo', 'mo'],
      ['sh', 'sh'],
      ['en', 'en'],
      ['none', null],
    ]) {
      await item(hebrew, itemId as string, language);
    }
    await old.destroy();

    const ds = await scratch.opened(catalogDatabase);
    expect(await migrate(ds, 'catalog')).toEqual(migrationsFrom(catalogDatabase, MIGRATION));
    const collections = await ds.getRepository(CollectionEntity).find({ where: { projectId: project }, order: { slug: 'ASC' } });
    expect(collections.map((c) => [c.slug, c.language])).toEqual([
      ['hebrew', 'he'],
      ['plain', null],
    ]);
    const items = await ds.getRepository(ItemEntity).find({ where: { projectId: project }, order: { itemId: 'ASC' } });
    expect(Object.fromEntries(items.map((i) => [i.itemId, i.language]))).toEqual({ en: 'en', in: 'id', iw: 'he', ji: 'yi', jw: 'jv', mo: 'ro', none: null, sh: 'sr' });
  });

  it("rewrites the language of retrieval's chunks, merging each project's counts into the current code's", async () => {
    const old = await scratch.migratedUpTo(retrievalDatabase, MIGRATION);
    const project = randomUUID();
    const chunk = (n: number, language: string) =>
      old.query(
        `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, language, url, metadata, length, terms)
         VALUES ($1, $2, 'default', NULL, $3, $4, 0, 'text', $5, NULL, '{}', 1, '{}')`,
        [n, project, randomUUID(), `item-${n}`, language],
      );
    await chunk(1, 'iw');
    await chunk(2, 'iw');
    await chunk(3, 'he');
    await chunk(4, 'en');
    await old.query(`INSERT INTO retrieval.project_languages (project_id, language, chunks) VALUES ($1, 'iw', 2), ($1, 'he', 1), ($1, 'en', 1), ($1, 'mo', 4)`, [project]);
    await old.query(
      `INSERT INTO retrieval.project_indexes (project_id, live_key, backend, analyzer, build_status, build_languages) VALUES ($1, $1, 'postgres', 2, 'copying', $2)`,
      [project, JSON.stringify({ iw: 2, he: 1, en: 1 })],
    );
    await old.destroy();

    const ds = await scratch.opened(retrievalDatabase);
    expect(await migrate(ds, 'retrieval')).toEqual(migrationsFrom(retrievalDatabase, MIGRATION));
    const chunks = await ds.getRepository(ChunkEntity).find({ where: { projectId: project }, order: { id: 'ASC' } });
    expect(chunks.map((c) => c.language)).toEqual(['he', 'he', 'he', 'en']);
    const counts = await ds.query(`SELECT language, chunks::int FROM retrieval.project_languages WHERE project_id = $1 ORDER BY language`, [project]);
    expect(counts).toEqual([
      { language: 'en', chunks: 1 },
      { language: 'he', chunks: 3 },
      { language: 'ro', chunks: 4 },
    ]);
    expect(await ds.query(`SELECT build_languages FROM retrieval.project_indexes WHERE project_id = $1`, [project])).toEqual([{ build_languages: { he: 3, en: 1 } }]);
  });

  it('rewrites the language of the collection and items of a batch not yet applied, leaving other batches as they were', async () => {
    const old = await scratch.migratedUpTo(ingestionDatabase, MIGRATION);
    const hebrew = {
      tenancy: 'single',
      collection: { slug: 'hebrew', language: 'iw' },
      items: [
        { id: 'a', language: 'in', data: { text: 'x', language: 'iw' } },
        { id: 'b', data: { text: 'y' } },
        { id: 'c', language: 'en', data: { text: 'z' } },
      ],
    };
    const english = { tenancy: 'single', collection: { slug: 'faq', language: 'en' }, items: [{ id: 'a', data: { text: 'x' } }] };
    const removal = { tenancy: 'single', collection: null, items: [], delete: { collection: 'hebrew' } };
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const batches = [hebrew, english, removal];
    for (const [i, id] of ids.entries()) {
      await old.query(
        `INSERT INTO ingestion.upserts (id, project_id, collection, status, items_count, attempts, available_at, created_at) VALUES ($1, $2, 'hebrew', 'queued', 1, 0, now(), now())`,
        [id, randomUUID()],
      );
      await old.query(`INSERT INTO ingestion.upsert_batches (upsert_id, payload) VALUES ($1, $2)`, [id, JSON.stringify(batches[i])]);
    }
    const englishText = JSON.stringify(english);
    await old.destroy();

    const ds = await scratch.opened(ingestionDatabase);
    expect(await migrate(ds, 'ingestion')).toEqual(migrationsFrom(ingestionDatabase, MIGRATION));
    const payload = async (id: string) => (await ds.query<Array<{ payload: string }>>(`SELECT payload FROM ingestion.upsert_batches WHERE upsert_id = $1`, [id]))[0].payload;
    expect(JSON.parse(await payload(ids[0]))).toEqual({
      ...hebrew,
      collection: { slug: 'hebrew', language: 'he' },
      items: [{ ...hebrew.items[0], language: 'id' }, hebrew.items[1], hebrew.items[2]],
    });
    expect(await payload(ids[1])).toBe(englishText);
    expect(JSON.parse(await payload(ids[2]))).toEqual(removal);
  });
});
