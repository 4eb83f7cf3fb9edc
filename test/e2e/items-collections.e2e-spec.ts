import { Collection, createProject, Item, MALFORMED_IDS, MISSING_ID, Page, Project, SearchHit, Upsert } from '../support/harness';
import { collectionSpec, expectMessageOnly, expectShape, expectValidation, itemExtensionSpec, itemSpec, object, pageSpec } from '../support/shapes';

describe('items and collections', () => {
  let project: Project;
  let first: Upsert;

  beforeAll(async () => {
    project = await createProject();
    first = await project.upsertAndWait(
      [
        {
          id: 'sku-1',
          data: { title: 'Trail shoe', text: 'A light trail running shoe with a grippy sole.' },
          metadata: { price: 120, color: 'red', size: 'M' },
          url: 'https://shop.example/sku-1',
        },
        { id: 2, data: { title: 'Road shoe', text: 'Cushioned road running shoe.' }, metadata: { price: 90, color: 'blue', size: 'L' } },
        { id: 'sku-3', tenant: 4, data: { title: 'Track spike', text: 'Spikes for the track.' }, metadata: { price: 150, color: 'black', size: 'S' } },
      ],
      { slug: 'shoes', name: 'Shoes', source: 'catalog-sync', metadata: { price: { type: 'number' }, size: { type: 'enum', options: ['S', 'M', 'L'] } } },
    );
  });

  describe('GET /v1/items', () => {
    it('lists items with every field, their collection and their upserts embedded', async () => {
      const r = await project.get<Page<Item>>('/items');
      expect(r.status).toBe(200);
      expectShape(r.body, pageSpec(object({ ...itemSpec, ...itemExtensionSpec })));
      expect(r.body.meta.total).toBe(3);
      const item = r.body.data.find((i) => i.item_id === 'sku-1');
      expect(item).toMatchObject({
        item_id: 'sku-1',
        tenant: null,
        url: 'https://shop.example/sku-1',
        data: { title: 'Trail shoe', text: 'A light trail running shoe with a grippy sole.' },
        metadata: { price: 120, color: 'red', size: 'M' },
      });
      expect(item?.collection).toMatchObject({ slug: 'shoes', name: 'Shoes', source: 'catalog-sync', items_count: 3 });
      expect(item?.upserts).toEqual([first]);
    });

    it("shows a loading project's items with their upserts as ingestion has them, never behind them once settled", async () => {
      const loading = await createProject();
      const accepted: string[] = [];
      for (let b = 0; b < 6; b++) {
        const r = await loading.upsert(Array.from({ length: 40 }, (_, i) => ({ id: `l-${b}-${i}`, data: { text: `Loaded item ${b} ${i} about trail shoes.` } })));
        expect(r.status).toBe(201);
        accepted.push((r.body as { data: { id: string } }).data.id);
      }
      // Listed while the upserts are processed: every upsert shown is one of them, in a state it has been in.
      const order = ['queued', 'processing', 'completed'];
      let settled = false;
      for (let i = 0; i < 400 && !settled; i++) {
        const page = await loading.get<Page<Item>>('/items?per_page=100');
        expect(page.status).toBe(200);
        const shown = page.body.data.flatMap((item) => item.upserts);
        for (const u of shown) {
          expect(accepted).toContain(u.id);
          const now = (await loading.get<{ data: Upsert }>(`/upserts/${u.id}`)).body.data;
          expect(order.indexOf(now.status)).toBeGreaterThanOrEqual(order.indexOf(u.status));
        }
        settled = page.body.meta.total === 240 && shown.every((u) => u.status === 'completed');
      }
      expect(settled).toBe(true);
      // Settled, every page says so.
      for (let p = 1; p <= 3; p++) {
        const page = await loading.get<Page<Item>>(`/items?per_page=100&page=${p}`);
        expect(page.body.data.every((item) => item.upserts.length === 1 && item.upserts[0].status === 'completed')).toBe(true);
      }
    });

    it('keeps the client id as a string, and the tenant and url as given', async () => {
      expect(await project.item('2')).toMatchObject({ item_id: '2', url: null, tenant: null });
      expect(await project.item('sku-3')).toMatchObject({ item_id: 'sku-3', tenant: 4 });
    });

    it('GET /items/{id} gives the same item', async () => {
      const listed = await project.get<Page<Item>>('/items');
      for (const item of listed.body.data) {
        const r = await project.get(`/items/${item.id}`);
        expect(r.status).toBe(200);
        expectShape(r.body, { data: object(itemSpec) });
        expect(r.body.data).toEqual(item);
      }
    });

    it('filters by collection slug, tenant and item_id; invalid values are 422', async () => {
      const ids = async (q: string) => (await project.get<Page<Item>>(`/items?${q}`)).body.data.map((i) => i.item_id).sort();
      expect(await ids('collection=shoes')).toEqual(['2', 'sku-1', 'sku-3']);
      expect(await ids('tenant=4')).toEqual(['sku-3']);
      expect(await ids('item_id=sku-1')).toEqual(['sku-1']);
      expect(await ids('item_id=2&collection=shoes')).toEqual(['2']);
      expectValidation(await project.get('/items?tenant=abc'), ['tenant']);
      expectValidation(await project.get('/items?tenant=0'), ['tenant']);
    });

    it('404s unknown and malformed ids with {message}', async () => {
      for (const id of [MISSING_ID, first.id, ...MALFORMED_IDS]) {
        const r = await project.get(`/items/${encodeURIComponent(id)}`);
        expect({ id, status: r.status }).toEqual({ id, status: 404 });
        expectMessageOnly(r.body);
      }
    });
  });

  describe('re-upserting', () => {
    it('updates the item in place: same service-side id, new data, the new upsert listed first', async () => {
      const before = await project.item('sku-1', 'shoes');
      const again = await project.upsertAndWait(
        [{ id: 'sku-1', data: { title: 'Trail shoe v2', text: 'Now waterproof.' }, metadata: { price: 130, color: 'green', size: 'M' }, url: 'https://shop.example/sku-1-v2' }],
        { slug: 'shoes' },
      );
      const after = (await project.get<{ data: Item }>(`/items/${before.id}`)).body.data;
      expect(after.id).toBe(before.id);
      expect(after.created_at).toBe(before.created_at);
      expect(after).toMatchObject({ data: { title: 'Trail shoe v2', text: 'Now waterproof.' }, metadata: { price: 130, color: 'green' }, url: 'https://shop.example/sku-1-v2' });
      expect(after.upserts.map((u) => u.id)).toEqual([again.id, first.id]);
      expect((after.updated_at ?? '') >= (after.created_at ?? '')).toBe(true);
      expect((await project.get<Page<Item>>('/items?item_id=sku-1')).body.data).toHaveLength(1);
      expect((await project.get<{ data: Collection }>(`/collections/${after.collection.id}`)).body.data.items_count).toBe(3);
      // The upsert's own view counts the item once.
      expect(again).toMatchObject({ chunk_size: 1, items_count: 1 });
    });

    it('replaces the searchable content: the old text is no longer found', async () => {
      const p = await createProject();
      await p.upsertAndWait([{ id: 'animal', data: { text: 'The zebra grazes on the savanna.' } }]);
      expect((await p.post<{ data: SearchHit[] }>('/search', { text: 'zebra' })).body.data.map((h) => h.item_id)).toEqual(['animal']);
      await p.upsertAndWait([{ id: 'animal', data: { text: 'The giraffe eats acacia leaves.' } }]);
      const old = await p.post<{ data: SearchHit[] }>('/search', { text: 'zebra savanna' });
      expect(old.status).toBe(200);
      expect(JSON.stringify(old.body.data)).not.toMatch(/zebra|savanna/i);
      expect((await p.post<{ data: SearchHit[] }>('/search', { text: 'giraffe' })).body.data.map((h) => h.item_id)).toEqual(['animal']);
      const answer = await p.post('/query', { text: 'Where does the zebra graze?' });
      expect(answer.status).toBe(201);
      expect(answer.body.data.text).not.toMatch(/savanna/i);
      expect(JSON.stringify(answer.body.data.sources)).not.toMatch(/zebra|savanna/i);
    });

    it('the same item_id in another collection is another item', async () => {
      const p = await createProject();
      await p.upsertAndWait([{ id: 'same', data: { text: 'in a' } }], { slug: 'a' });
      await p.upsertAndWait([{ id: 'same', data: { text: 'in b' } }], { slug: 'b' });
      const items = (await p.get<Page<Item>>('/items?item_id=same')).body.data;
      expect(items).toHaveLength(2);
      expect(new Set(items.map((i) => i.id)).size).toBe(2);
      expect(items.map((i) => i.collection.slug).sort()).toEqual(['a', 'b']);
    });

    it('lists the upserts that touched an item newest first', async () => {
      const p = await createProject();
      const ups: Upsert[] = [];
      for (let i = 0; i < 3; i++) ups.push(await p.upsertAndWait([{ id: 'doc', data: { text: `version ${i}` } }]));
      const item = await p.item('doc');
      expect(item.upserts.map((u) => u.id)).toEqual(ups.map((u) => u.id).reverse());
      expect(item.data).toEqual({ text: 'version 2' });
    });
  });

  describe('collections', () => {
    it('lists collections with every field; declared and inferred metadata fields', async () => {
      const r = await project.get<Page<Collection>>('/collections?slug=shoes');
      expect(r.status).toBe(200);
      expectShape(r.body, pageSpec(object(collectionSpec)));
      expect(r.body.data).toHaveLength(1);
      const c = r.body.data[0];
      expect(c).toMatchObject({ name: 'Shoes', slug: 'shoes', source: 'catalog-sync', items_count: 3 });
      expect(c.metadata).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'price', type: 'number' }),
          expect.objectContaining({ name: 'size', type: 'enum', options: ['S', 'M', 'L'] }),
          expect.objectContaining({ name: 'color', type: 'string' }),
        ]),
      );
      expect(new Set(c.metadata.map((f) => f.name)).size).toBe(c.metadata.length);
    });

    it('GET /collections/{id} gives the same collection', async () => {
      const listed = (await project.get<Page<Collection>>('/collections')).body.data;
      expect(listed.length).toBeGreaterThanOrEqual(1);
      for (const c of listed) {
        const r = await project.get(`/collections/${c.id}`);
        expect(r.status).toBe(200);
        expectShape(r.body, { data: object(collectionSpec) });
        expect(r.body.data).toEqual(c);
      }
    });

    it('a new slug creates a collection named after it with source "api"; items without one go to "default"', async () => {
      const p = await createProject();
      await p.upsertAndWait([{ id: 'n1', data: { text: 'note' } }], { slug: 'notes' });
      await p.upsertAndWait([{ id: 'd1', data: { text: 'default' } }]);
      const all = (await p.get<Page<Collection>>('/collections')).body.data;
      expect(all.map((c) => c.slug)).toEqual(['default', 'notes']);
      expect(all.find((c) => c.slug === 'notes')).toMatchObject({ name: 'notes', source: 'api', items_count: 1 });
      expect(all.find((c) => c.slug === 'default')).toMatchObject({ name: 'default', items_count: 1 });
      expect((await p.get<Page<Collection>>('/collections?slug=notes')).body.data.map((c) => c.slug)).toEqual(['notes']);
    });

    it('every field a collection lists can be filtered on, whatever its name; a name that cannot be is not listed', async () => {
      const p = await createProject();
      await p.upsertAndWait(
        [
          { id: 'small', data: { text: 'a small garden shed' }, metadata: { 'Größe [m²]': 4, 'Release date': '2024-03-01', 'say "hi"': 'x' } },
          { id: 'large', data: { text: 'a large garden shed' }, metadata: { 'Größe [m²]': 9, 'Release date': '2025-06-01', 'say "hi"': 'y' } },
        ],
        { slug: 'sheds', metadata: { 'Colour (RAL)': { type: 'string' } } },
      );
      const [c] = (await p.get<Page<Collection>>('/collections?slug=sheds')).body.data;
      expect(c.metadata.map((f) => f.name).sort()).toEqual(['Colour (RAL)', 'Größe [m²]', 'Release date']);
      const found = async (filter: unknown) => (await p.post<{ data: SearchHit[] }>('/search', { text: 'garden shed', filter })).body.data.map((h) => h.item_id).sort();
      expect(await found({ 'Größe [m²]': { $gt: 5 } })).toEqual(['large']);
      expect(await found({ 'Release date': { $lt: '2025-01-01' } })).toEqual(['small']);
      expect(await found({ 'Colour (RAL)': 'green' })).toEqual([]);
      expectValidation(await p.post('/search', { text: 'garden shed', filter: { 'say "hi"': 'x' } }), ['filter.say "hi"']);
      expectValidation(await p.post('/upserts', { items: [{ id: 'q', data: { text: 'q' } }], collection: { slug: 'sheds', metadata: { 'a"b': { type: 'string' } } } }), [
        'collection.metadata',
      ]);
    });

    it('items_count counts items, not chunks', async () => {
      const p = await createProject();
      const long = Array.from({ length: 3000 }, (_, i) => `sentence ${i} about the long document with many words.`).join(' ');
      await p.upsertAndWait([{ id: 'long', data: { title: 'Long', text: long } }], { slug: 'docs' });
      let c = (await p.get<Page<Collection>>('/collections?slug=docs')).body.data[0];
      expect(c.items_count).toBe(1);
      await p.upsertAndWait(
        [
          { id: 'short', data: { text: 'short one' } },
          { id: 'long', data: { text: long + ' updated' } },
        ],
        { slug: 'docs' },
      );
      c = (await p.get<Page<Collection>>('/collections?slug=docs')).body.data[0];
      expect(c.items_count).toBe(2);
    });

    it('refuses an undeclarable metadata type with 422', async () => {
      const r = await project.post('/upserts', { items: [{ id: 'z', data: { t: 1 } }], collection: { slug: 'bad', metadata: { colour: { type: 'rgb' } } } });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors).every((k) => k.startsWith('collection.metadata'))).toBe(true);
    });

    it('404s unknown and malformed ids with {message}', async () => {
      const item = await project.item('2');
      for (const id of [MISSING_ID, item.id, ...MALFORMED_IDS]) {
        const r = await project.get(`/collections/${encodeURIComponent(id)}`);
        expect({ id, status: r.status }).toEqual({ id, status: 404 });
        expectMessageOnly(r.body);
      }
    });
  });
});
