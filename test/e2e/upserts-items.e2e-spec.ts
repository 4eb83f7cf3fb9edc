import { http, MISSING, Project, TIMESTAMP, UUID } from '../support/client';

describe('upserts, items and collections', () => {
  let project: Project;
  let first: any;

  beforeAll(async () => {
    project = await Project.create();
    first = await project.upsert(
      [
        { id: 'sku-1', data: { title: 'Trail shoe', text: 'A light trail running shoe with a grippy sole.' }, metadata: { price: 120, color: 'red' }, url: 'https://shop.test/sku-1' },
        { id: 2, data: { title: 'Road shoe', text: 'Cushioned road running shoe.' }, metadata: { price: 90, color: 'blue' } },
      ],
      { slug: 'shoes', name: 'Shoes', metadata: { price: { type: 'number' } } },
    );
  });

  it('answers 201 with a queued receipt, then the upsert completes', async () => {
    const r = await project.post('/upserts', { items: [{ id: 'x1', data: { text: 'hello' } }] });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ id: expect.stringMatching(UUID), result: 'Queued', created_at: expect.stringMatching(TIMESTAMP) });
    const done = await project.waitFor(r.body.data.id);
    expect(done).toMatchObject({ status: 'completed', chunk_size: 1, items_count: 1, collection: 'default', error: null, attempts: 1 });
    expect(done.started_at).toMatch(TIMESTAMP);
    expect(done.completed_at).toMatch(TIMESTAMP);
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
  });

  it('lists upserts newest first with filters, and gets one', async () => {
    const list = await project.get('/upserts?collection=shoes');
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: any) => u.id)).toEqual([first.id]);
    const byStatus = await project.get('/upserts?status=completed');
    expect(byStatus.body.data.length).toBeGreaterThanOrEqual(2);
    expect(byStatus.body.data.every((u: any) => u.status === 'completed')).toBe(true);
    expect((await project.get('/upserts?status=done')).status).toBe(422);
    const one = await project.get(`/upserts/${first.id}`);
    expect(one.body.data).toEqual(first);
    for (const u of ['completed_at', 'started_at', 'created_at', 'chunk_size', 'status', 'id']) expect(one.body.data).toHaveProperty(u);
  });

  it('lists items with their collection and upserts embedded', async () => {
    const r = await project.get('/items?collection=shoes');
    expect(r.body.meta.total).toBe(2);
    const item = r.body.data.find((i: any) => i.item_id === 'sku-1');
    expect(item).toMatchObject({
      id: expect.stringMatching(UUID), item_id: 'sku-1', tenant: null, url: 'https://shop.test/sku-1', created_at: expect.stringMatching(TIMESTAMP),
      data: { title: 'Trail shoe' }, metadata: { price: 120, color: 'red' },
    });
    expect(item.collection).toMatchObject({ slug: 'shoes', name: 'Shoes', source: 'api', items_count: 2 });
    expect(item.upserts.map((u: any) => u.id)).toEqual([first.id]);
    expect(r.body.data.find((i: any) => i.item_id === '2')).toBeDefined();
    expect((await project.get('/items?item_id=sku-1')).body.data).toHaveLength(1);
    expect((await project.get('/items?tenant=abc')).status).toBe(422);
  });

  it('re-upserting an item updates it, keeps its id, and lists the new upsert first', async () => {
    const before = (await project.get('/items?item_id=sku-1')).body.data[0];
    const again = await project.upsert([{ id: 'sku-1', data: { title: 'Trail shoe v2', text: 'Now waterproof.' }, metadata: { price: 130 } }], { slug: 'shoes' });
    const after = (await project.get(`/items/${before.id}`)).body.data;
    expect(after.id).toBe(before.id);
    expect(after.data).toEqual({ title: 'Trail shoe v2', text: 'Now waterproof.' });
    expect(after.upserts.map((u: any) => u.id)).toEqual([again.id, first.id]);
    const collection = (await project.get(`/collections/${after.collection.id}`)).body.data;
    expect(collection.items_count).toBe(2);
  });

  it('describes collections with declared and inferred metadata fields', async () => {
    const list = await project.get('/collections?slug=shoes');
    expect(list.body.data).toHaveLength(1);
    const c = list.body.data[0];
    expect(c).toMatchObject({ id: expect.stringMatching(UUID), name: 'Shoes', slug: 'shoes', source: 'api', created_at: expect.stringMatching(TIMESTAMP) });
    expect(c.metadata).toEqual(expect.arrayContaining([{ name: 'price', type: 'number' }, { name: 'color', type: 'string' }]));
    expect((await project.get(`/collections/${c.id}`)).body.data.slug).toBe('shoes');
  });

  it.each(['/upserts', '/items', '/collections', '/chats'])('404s unknown and malformed ids on %s/{id}', async (route) => {
    for (const id of [MISSING, 'not-an-id', "1' OR '1'='1", '..%2F..%2Fetc']) {
      const r = await project.get(`${route}/${id}`);
      expect(r.status).toBe(404);
      expect(Object.keys(r.body)).toEqual(['message']);
    }
  });

  describe('validation', () => {
    it('reports every problem with dotted paths', async () => {
      const r = await project.post('/upserts', { items: [{ id: 'a', data: { x: 1 } }, { id: 'b' }, { id: 'c', data: {}, tenant: 'x', url: 'nope' }] });
      expect(r.status).toBe(422);
      expect(r.body.message).toMatch(/^The items\.1\.data field is required\. \(and \d+ more errors?\)$/);
      expect(Object.keys(r.body.errors).sort()).toEqual(['items.1.data', 'items.2.data', 'items.2.tenant', 'items.2.url']);
      expect(r.body.errors['items.1.data']).toEqual(['The items.1.data field is required.']);
    });

    it('requires items, at most 500 of them', async () => {
      expect((await project.post('/upserts', {})).body.errors).toEqual({ items: ['The items field is required.'] });
      expect((await project.post('/upserts', { items: [] })).status).toBe(422);
      const many = Array.from({ length: 501 }, (_, i) => ({ id: i, data: { t: 'x' } }));
      const r = await project.post('/upserts', { items: many });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(['items']);
    });

    it('rejects malformed JSON and a non-JSON content type with 400', async () => {
      const bad = await http('POST', '/v1/upserts', { key: project.key, raw: '{"items": [', headers: { 'Content-Type': 'application/json' } });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body)).toEqual(['message']);
      const form = await http('POST', '/v1/upserts', { key: project.key, raw: 'items=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      expect(form.status).toBe(400);
    });

    it('rejects a body over 10 MiB with 413', async () => {
      const r = await http('POST', '/v1/upserts', { key: project.key, raw: JSON.stringify({ items: [{ id: 'a', data: { t: 'x'.repeat(11 * 1024 * 1024) } }] }), headers: { 'Content-Type': 'application/json' } });
      expect(r.status).toBe(413);
      expect(Object.keys(r.body)).toEqual(['message']);
    });
  });

  describe('pagination', () => {
    let paged: Project;
    beforeAll(async () => {
      paged = await Project.create();
      await paged.upsert(Array.from({ length: 7 }, (_, i) => ({ id: `p${i}`, data: { text: `item ${i}` } })));
    });

    it('gives an empty first page for a project with nothing', async () => {
      const empty = await (await Project.create()).get('/items');
      expect(empty.body.data).toEqual([]);
      expect(empty.body.meta).toMatchObject({ current_page: 1, from: null, to: null, last_page: 1, total: 0, per_page: 15 });
      expect(empty.body.links.prev).toBeNull();
      expect(empty.body.links.next).toBeNull();
    });

    it('pages newest first with Laravel meta and absolute links that keep the other parameters', async () => {
      const p1 = await paged.get('/items?per_page=3&collection=default');
      expect(p1.body.data.map((i: any) => i.item_id)).toEqual(['p6', 'p5', 'p4']);
      expect(p1.body.meta).toMatchObject({ current_page: 1, from: 1, to: 3, last_page: 3, per_page: 3, total: 7 });
      expect(p1.body.meta.path).toMatch(/^http:\/\/[^/]+\/v1\/items$/);
      expect(p1.body.links.next).toMatch(/^http:\/\/.+\/v1\/items\?.*page=2/);
      expect(p1.body.links.next).toContain('collection=default');
      expect(p1.body.links.next).toContain('per_page=3');
      expect(p1.body.meta.links.map((l: any) => l.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
      const last = await paged.get('/items?per_page=3&page=3');
      expect(last.body.data.map((i: any) => i.item_id)).toEqual(['p0']);
      expect(last.body.meta).toMatchObject({ from: 7, to: 7 });
      expect(last.body.links.next).toBeNull();
      const beyond = await paged.get('/items?per_page=3&page=9');
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 3, total: 7 });
    });

    it('bounds per_page to 1..100 and page to >= 1', async () => {
      expect((await paged.get('/items?per_page=1')).body.data).toHaveLength(1);
      expect((await paged.get('/items?per_page=100')).status).toBe(200);
      for (const q of ['per_page=101', 'per_page=0', 'page=0', 'page=abc', 'per_page=1.5']) {
        const r = await paged.get(`/items?${q}`);
        expect(r.status).toBe(422);
        expect(Object.keys(r.body.errors)).toEqual([q.split('=')[0]]);
      }
    });
  });
});
