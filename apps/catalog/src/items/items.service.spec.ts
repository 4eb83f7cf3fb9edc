import { BusRequest, CatalogItemInput, ErrorCode, Subjects, UpsertItemInput } from '@askdata/contracts';
import { BusClient, packJson, ServiceError, uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { embeddedDatabase, EmbeddedDatabase } from '../../../../test/support/embedded-database';
import { catalogDatabase } from '../catalog.database';
import { CollectionsService } from '../collections/collections.service';
import { ItemsService } from './items.service';

type Batch = BusRequest<typeof Subjects.catalog.batchApply>;

/** A bus that records the change announcements, or refuses them. */
function bus(refuse = false): BusClient & { announced: string[] } {
  const announced: string[] = [];
  return {
    announced,
    publish: (_subject: string, data: { projectId: string }) => {
      if (refuse) return Promise.reject(new Error('no route to NATS'));
      announced.push(data.projectId);
      return Promise.resolve();
    },
  } as unknown as BusClient & { announced: string[] };
}

const item = (id: string, extra: Partial<UpsertItemInput> = {}): UpsertItemInput => ({ id, data: { title: `Item ${id}` }, metadata: {}, tenant: null, url: null, ...extra });

describe('catalog items and collections (embedded PostgreSQL)', () => {
  let db: EmbeddedDatabase;
  let ds: DataSource;
  let project: string;
  const scope = () => ({ projectId: project, tenancy: 'single' as const });

  // A fresh embedded database starts in seconds, more on a busy machine.
  beforeAll(async () => {
    db = await embeddedDatabase(catalogDatabase);
    ds = db.ds;
  }, 180000);
  afterAll(() => db.stop());
  // Every test has a project of its own: nothing another test stored is seen.
  beforeEach(() => (project = uuidv7()));

  const apply = (items: CatalogItemInput[], collection: Batch['collection'] = null, service = new ItemsService(ds, bus())) =>
    service.applyBatch({ scope: scope(), upsertId: uuidv7(), collection, items });
  const list = (params: Partial<BusRequest<typeof Subjects.catalog.itemsList>> = {}) =>
    new ItemsService(ds, bus()).list({ scope: scope(), page: 1, perPage: 50, collection: null, tenant: null, itemId: null, ...params });
  const collections = () => new CollectionsService(ds);

  describe('applying a batch', () => {
    it('creates the collection and its items, counts them, and announces the change', async () => {
      const b = bus();
      const applied = await apply([item('a'), item('b')], { slug: 'docs', name: 'Docs' }, new ItemsService(ds, b));
      expect(applied.collection.slug).toBe('docs');
      expect(applied.items.map((i) => i.item_id)).toEqual(['a', 'b']);
      expect(b.announced).toEqual([project]);
      const listed = await list();
      expect(listed.total).toBe(2);
      expect(listed.data.map((i) => i.item_id).sort()).toEqual(['a', 'b']);
      expect(listed.data[0].collection).toMatchObject({ slug: 'docs', name: 'Docs', items_count: 2 });
    });

    it('updates an item upserted again: same service id, new data, the count unchanged, both upserts listed newest first', async () => {
      const first = await apply([item('a', { data: { title: 'Old' } })]);
      const second = await apply([item('a', { data: { title: 'New' } }), item('b')]);
      expect(second.items.find((i) => i.item_id === 'a')!.id).toBe(first.items[0].id);
      const stored = await new ItemsService(ds, bus()).get(scope(), first.items[0].id);
      expect(stored.data).toEqual({ title: 'New' });
      expect(stored.collection.items_count).toBe(2);
      expect(stored.upsert_ids).toHaveLength(2);
      expect(stored.upsert_ids[0] > stored.upsert_ids[1]).toBe(true);
    });

    it('stores the data packed, and reads back rows stored before as they were until their item is upserted again', async () => {
      const data = { title: 'Über', text: 'Prose to keep. '.repeat(40), list: [1, 2.5, null, { x: true }] };
      const [applied] = (await apply([item('a', { data })])).items;
      const [row] = await ds.query<Array<{ data: unknown; packed: Buffer }>>('SELECT data, packed FROM catalog.items WHERE id = $1', [applied.id]);
      expect(row.data).toBeNull();
      expect(row.packed.length).toBeLessThan(Buffer.byteLength(JSON.stringify(data)) / 2);
      expect((await new ItemsService(ds, bus()).get(scope(), applied.id)).data).toEqual(data);

      // A row as written before data was packed.
      await ds.query(`UPDATE catalog.items SET data = $2::jsonb, packed = NULL WHERE id = $1`, [applied.id, JSON.stringify({ title: 'Before' })]);
      expect((await list()).data.map((i) => i.data)).toEqual([{ title: 'Before' }]);
      await apply([item('a', { data: { title: 'After' } })]);
      const [again] = await ds.query<Array<{ data: unknown; packed: Buffer | null }>>('SELECT data, packed FROM catalog.items WHERE id = $1', [applied.id]);
      expect([again.data, again.packed === null]).toEqual([null, false]);
      expect((await list()).data.map((i) => i.data)).toEqual([{ title: 'After' }]);
    });

    it('stores data that ingestion packed as it was given, beside data given as sent', async () => {
      const data = { title: 'Packed by ingestion', text: 'Its text. '.repeat(30) };
      const given = packJson(data);
      const applied = await apply([{ ...item('packed'), data: undefined, packed: given.toString('base64') }, item('sent')]);
      const id = applied.items.find((i) => i.item_id === 'packed')!.id;
      const [row] = await ds.query<Array<{ packed: Buffer }>>('SELECT packed FROM catalog.items WHERE id = $1', [id]);
      expect(row.packed.equals(given)).toBe(true);
      expect(Object.fromEntries((await list()).data.map((i) => [i.item_id, i.data]))).toEqual({ packed: data, sent: { title: 'Item sent' } });
    });

    it('applied twice, leaves the same items, ids and counts', async () => {
      const batch: Batch = { scope: scope(), upsertId: uuidv7(), collection: null, items: [item('a'), item('b')] };
      const service = new ItemsService(ds, bus());
      const once = await service.applyBatch(batch);
      const twice = await service.applyBatch(batch);
      expect(twice).toEqual(once);
      const listed = await list();
      expect(listed.total).toBe(2);
      expect(listed.data[0].upsert_ids).toEqual([batch.upsertId]);
    });

    it('keeps the last occurrence of an item id within a batch', async () => {
      const applied = await apply([item('a', { data: { n: 1 } }), item('a', { data: { n: 2 } })]);
      expect(applied.items).toHaveLength(1);
      expect((await list()).data.map((i) => i.data)).toEqual([{ n: 2 }]);
    });

    it("gives an item its own language, else its collection's, else the one detected", async () => {
      const applied = await apply([item('own', { language: 'de', detected_language: 'en' }), item('collection', { detected_language: 'en' })], { slug: 'french', language: 'fr' });
      expect(Object.fromEntries(applied.items.map((i) => [i.item_id, i.language]))).toEqual({ own: 'de', collection: 'fr' });
      const detected = await apply([item('detected', { detected_language: 'es' })]);
      expect(detected.items[0].language).toBe('es');
    });

    it("infers the collection's fields from the items' metadata; declared fields come first and win", async () => {
      await apply([item('a', { metadata: { price: 12, colour: 'red' } })], { slug: 'shop', metadata: { price: { type: 'string' } } });
      const [shop] = (await collections().list({ scope: scope(), page: 1, perPage: 10, slug: 'shop' })).data;
      expect(shop.metadata).toEqual([
        { name: 'price', type: 'string' },
        { name: 'colour', type: 'string' },
      ]);
    });

    it('refuses a batch that takes a collection beyond its field limit (422 naming the field), storing nothing', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, i]));
      const refused = await apply([item('a', { metadata })]).catch((e: ServiceError) => e);
      expect(refused).toBeInstanceOf(ServiceError);
      expect((refused as ServiceError).code).toBe(ErrorCode.Validation);
      expect(Object.keys((refused as ServiceError).details!)).toEqual(['items.0.metadata.f100']);
      expect((await list()).total).toBe(0);
    });

    it('answers UNAVAILABLE when the change cannot be announced; the batch is stored and may be applied again', async () => {
      const batch: Batch = { scope: scope(), upsertId: uuidv7(), collection: null, items: [item('a')] };
      const refused = await new ItemsService(ds, bus(true)).applyBatch(batch).catch((e: ServiceError) => e);
      expect((refused as ServiceError).code).toBe(ErrorCode.Unavailable);
      const b = bus();
      await new ItemsService(ds, b).applyBatch(batch);
      expect(b.announced).toEqual([project]);
      expect((await list()).total).toBe(1);
    });
  });

  describe('listing items', () => {
    beforeEach(async () => {
      await apply([item('a1', { tenant: 1 }), item('a2', { tenant: 2 })], { slug: 'alpha' });
      await apply([item('b1', { tenant: 1 })], { slug: 'beta' });
    });

    it('lists newest first, page by page, with the total', async () => {
      const all = await list();
      expect(all.data.map((i) => i.item_id)).toEqual(['b1', 'a2', 'a1']);
      const pages = [await list({ page: 1, perPage: 2 }), await list({ page: 2, perPage: 2 }), await list({ page: 3, perPage: 2 })];
      expect(pages.map((p) => p.data.map((i) => i.item_id))).toEqual([['b1', 'a2'], ['a1'], []]);
      expect(pages.map((p) => p.total)).toEqual([3, 3, 3]);
    });

    it('filters by collection, tenant and item id, the total counting what matches', async () => {
      const alpha = await list({ collection: 'alpha' });
      expect([alpha.data.map((i) => i.item_id), alpha.total]).toEqual([['a2', 'a1'], 2]);
      const tenant1 = await list({ tenant: 1 });
      expect([tenant1.data.map((i) => i.item_id), tenant1.total]).toEqual([['b1', 'a1'], 2]);
      const one = await list({ collection: 'alpha', tenant: 2, itemId: 'a2' });
      expect([one.data.map((i) => i.item_id), one.total]).toEqual([['a2'], 1]);
      expect(await list({ collection: 'gamma' })).toEqual({ data: [], total: 0 });
    });

    it("does not show another project's items, nor find them by id", async () => {
      const [mine] = (await list()).data;
      project = uuidv7();
      expect(await list()).toEqual({ data: [], total: 0 });
      await expect(new ItemsService(ds, bus()).get(scope(), mine.id)).rejects.toMatchObject({ code: ErrorCode.NotFound });
      await expect(new ItemsService(ds, bus()).get(scope(), 'not-an-id')).rejects.toMatchObject({ code: ErrorCode.NotFound });
    });
  });

  describe('collections', () => {
    it('counts their items, newest collection first, and finds one by slug', async () => {
      await apply([item('a'), item('b')], { slug: 'alpha' });
      await apply([item('c')], { slug: 'beta' });
      await apply([item('a')], { slug: 'alpha' });
      const listed = await collections().list({ scope: scope(), page: 1, perPage: 10, slug: null });
      expect(listed.data.map((c) => [c.slug, c.items_count])).toEqual([
        ['beta', 1],
        ['alpha', 2],
      ]);
      expect(listed.total).toBe(2);
      expect((await collections().list({ scope: scope(), page: 1, perPage: 10, slug: 'alpha' })).data.map((c) => c.slug)).toEqual(['alpha']);
    });

    it('resolves the slugs a question names; an unknown one is a 422 at its place in the request', async () => {
      await apply([item('a')], { slug: 'alpha' });
      await apply([item('b')], { slug: 'beta' });
      const all = await collections().resolve({ scope: scope(), slugs: null, path: 'collections' });
      expect(all.map((c) => c.slug)).toEqual(['alpha', 'beta']);
      const refused = await collections()
        .resolve({ scope: scope(), slugs: ['beta', 'gamma'], path: 'collections' })
        .catch((e: ServiceError) => e);
      expect((refused as ServiceError).code).toBe(ErrorCode.Validation);
      expect((refused as ServiceError).details).toEqual({ 'collections.1': ['The selected collections.1 is invalid.'] });
    });

    it("checks an upsert's fields against those the collection has: known fields do not count twice", async () => {
      await apply([item('a', { metadata: { colour: 'red' } })], { slug: 'shop' });
      const check = (names: string[]) => collections().checkFields({ scope: scope(), slug: 'shop', fields: names.map((name) => ({ name, path: `items.0.metadata.${name}` })) });
      expect(await check(['colour', 'size'])).toEqual({ fields: 2 });
      const many = Array.from({ length: 100 }, (_, i) => `f${i}`);
      await expect(check(many)).rejects.toMatchObject({ code: ErrorCode.Validation, details: { 'items.0.metadata.f99': [expect.any(String)] } });
    });
  });
});
