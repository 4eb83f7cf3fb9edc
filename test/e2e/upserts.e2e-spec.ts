import { createProject, http, MALFORMED_IDS, MISSING_ID, Page, Project, Upsert } from '../support/harness';
import { expectMessageOnly, expectShape, expectValidation, object, pageSpec, receiptSpec, upsertExtensionSpec, upsertSpec } from '../support/shapes';

const inOrder = (...timestamps: Array<string | null>) => expect(timestamps).toEqual([...timestamps].sort());

describe('upserts', () => {
  let project: Project;
  beforeAll(async () => {
    project = await createProject();
  });

  describe('POST /v1/upserts', () => {
    it('answers 201 with a receipt {id, result: "Queued", created_at}; polled, the upsert completes with its timestamps set', async () => {
      const r = await project.upsert([
        { id: 'a1', data: { title: 'Alpha', text: 'The first item.' } },
        { id: 'a2', data: { title: 'Beta', text: 'The second item.' } },
      ]);
      expect(r.status).toBe(201);
      expectShape(r.body, { data: object(receiptSpec) });
      const id = r.body.data.id;

      // The batch is visible at once through GET /upserts/{id}, in whatever state it has reached.
      const early = await project.get(`/upserts/${id}`);
      expect(early.status).toBe(200);
      expectShape(early.body, { data: object(upsertSpec) });
      expect(early.body.data).toMatchObject({ id, chunk_size: 2, created_at: r.body.data.created_at });

      const done = await project.waitForUpsert(id);
      expectShape(done, { ...upsertSpec, ...upsertExtensionSpec }, 'upsert');
      expect(done).toMatchObject({ id, status: 'completed', chunk_size: 2, collection: 'default', items_count: 2, error: null });
      expect(done.attempts).toBeGreaterThanOrEqual(1);
      expect(done.started_at).not.toBeNull();
      expect(done.completed_at).not.toBeNull();
      inOrder(done.created_at, done.started_at, done.completed_at);

      const items = await project.get('/items?collection=default');
      expect(items.body.data.map((i: { item_id: string }) => i.item_id).sort()).toEqual(['a1', 'a2']);
    });

    it('takes string and integer ids, metadata, tenant and url', async () => {
      const done = await project.upsertAndWait(
        [
          { id: 42, data: { text: 'integer id' }, metadata: { shelf: 3 }, tenant: 7, url: 'https://example.com/42' },
          { id: 'x'.repeat(255), data: { text: 'longest id' } },
        ],
        { slug: 'ids' },
      );
      expect(done).toMatchObject({ status: 'completed', chunk_size: 2, collection: 'ids' });
      const item = await project.item('42', 'ids');
      expect(item).toMatchObject({ item_id: '42', tenant: 7, url: 'https://example.com/42', metadata: { shelf: 3 } });
      expect((await project.item('x'.repeat(255), 'ids')).item_id).toHaveLength(255);
    });

    it('accepts 500 items in one upsert', async () => {
      const items = Array.from({ length: 500 }, (_, i) => ({ id: `bulk-${i}`, data: { text: `bulk item number ${i}` } }));
      const done = await project.upsertAndWait(items, { slug: 'bulk' });
      expect(done).toMatchObject({ status: 'completed', chunk_size: 500, items_count: 500 });
      const c = await project.get('/collections?slug=bulk');
      expect(c.body.data[0].items_count).toBe(500);
    });
  });

  describe('GET /v1/upserts and /v1/upserts/{id}', () => {
    let listing: Project;
    const done: Upsert[] = [];
    beforeAll(async () => {
      listing = await createProject();
      done.push(await listing.upsertAndWait([{ id: 'u1', data: { t: 'one' } }], { slug: 'first' }));
      done.push(await listing.upsertAndWait([{ id: 'u2', data: { t: 'two' } }], { slug: 'second' }));
      done.push(
        await listing.upsertAndWait(
          [
            { id: 'u3', data: { t: 'three' } },
            { id: 'u4', data: { t: 'four' } },
          ],
          { slug: 'second' },
        ),
      );
    });

    it('lists upserts newest first in the pagination envelope, every field present', async () => {
      const r = await listing.get<Page<Upsert>>('/upserts');
      expect(r.status).toBe(200);
      expectShape(r.body, pageSpec(object({ ...upsertSpec, ...upsertExtensionSpec })));
      expect(r.body.data.map((u) => u.id)).toEqual(done.map((u) => u.id).reverse());
      expect(r.body.meta).toMatchObject({ total: 3, current_page: 1, from: 1, to: 3, last_page: 1 });
    });

    it('GET /upserts/{id} gives the same upsert', async () => {
      for (const u of done) {
        const r = await listing.get(`/upserts/${u.id}`);
        expect(r.status).toBe(200);
        expect(r.body.data).toEqual(u);
      }
    });

    it('filters by collection and status; an invalid status is 422', async () => {
      const second = await listing.get<Page<Upsert>>('/upserts?collection=second');
      expect(second.body.data.map((u) => u.id)).toEqual([done[2].id, done[1].id]);
      expect(second.body.data.every((u) => u.collection === 'second')).toBe(true);
      const completed = await listing.get<Page<Upsert>>('/upserts?status=completed');
      expect(completed.body.meta.total).toBe(3);
      for (const status of ['queued', 'processing', 'failed']) {
        const r = await listing.get<Page<Upsert>>(`/upserts?status=${status}`);
        expect({ status, data: r.body.data }).toEqual({ status, data: [] });
      }
      expectValidation(await listing.get('/upserts?status=done'), ['status']);
    });

    it('404s unknown and malformed ids with {message}', async () => {
      for (const id of [MISSING_ID, ...MALFORMED_IDS]) {
        const r = await listing.get(`/upserts/${encodeURIComponent(id)}`);
        expect({ id, status: r.status }).toEqual({ id, status: 404 });
        expectMessageOnly(r.body);
      }
    });
  });

  describe('validation (422 with dotted field paths)', () => {
    const ok = { id: 'ok', data: { t: 1 } };
    it.each<[string, unknown, string[]]>([
      ['no items', {}, ['items']],
      ['empty items', { items: [] }, ['items']],
      ['items not an array', { items: 'x' }, ['items']],
      ['501 items', { items: Array.from({ length: 501 }, (_, i) => ({ id: i, data: { t: 'x' } })) }, ['items']],
      ['an item without id', { items: [ok, { data: { t: 1 } }] }, ['items.1.id']],
      ['an empty id', { items: [{ id: '', data: { t: 1 } }] }, ['items.0.id']],
      ['an id over 255 characters', { items: [{ id: 'x'.repeat(256), data: { t: 1 } }] }, ['items.0.id']],
      ['an object id', { items: [{ id: { a: 1 }, data: { t: 1 } }] }, ['items.0.id']],
      ['an item without data', { items: [{ id: 'a' }] }, ['items.0.data']],
      ['empty data', { items: [{ id: 'a', data: {} }] }, ['items.0.data']],
      ['data a string', { items: [{ id: 'a', data: 'text' }] }, ['items.0.data']],
      ['data an array', { items: [{ id: 'a', data: ['text'] }] }, ['items.0.data']],
      ['metadata not an object', { items: [{ id: 'a', data: { t: 1 }, metadata: 'm' }] }, ['items.0.metadata']],
      ['tenant 0', { items: [{ id: 'a', data: { t: 1 }, tenant: 0 }] }, ['items.0.tenant']],
      ['tenant a string', { items: [{ id: 'a', data: { t: 1 }, tenant: 'x' }] }, ['items.0.tenant']],
      ['tenant a fraction', { items: [{ id: 'a', data: { t: 1 }, tenant: 1.5 }] }, ['items.0.tenant']],
      ['an invalid url', { items: [{ id: 'a', data: { t: 1 }, url: 'not a url' }] }, ['items.0.url']],
      ['a collection without slug', { items: [ok], collection: { name: 'x' } }, ['collection.slug']],
      [
        'several problems',
        { items: [ok, { id: 'b' }, { id: 'c', data: {}, tenant: 'x', url: 'nope' }, { id: 'd', data: { t: 1 }, tenant: -3 }] },
        ['items.1.data', 'items.2.data', 'items.2.tenant', 'items.2.url', 'items.3.tenant'],
      ],
    ])('%s', async (_name, body, paths) => {
      expectValidation(await project.post('/upserts', body), paths);
    });

    it('a refused upsert stores nothing', async () => {
      const fresh = await createProject();
      const r = await fresh.post('/upserts', {
        items: [
          { id: 'good', data: { t: 1 } },
          { id: 'bad', data: {} },
        ],
      });
      expect(r.status).toBe(422);
      expect((await fresh.get('/upserts')).body.meta.total).toBe(0);
      expect((await fresh.get('/items')).body.meta.total).toBe(0);
      expect((await fresh.get('/collections')).body.meta.total).toBe(0);
    });

    it('the message is the first error', async () => {
      const r = await project.post('/upserts', { items: [{ id: 'a' }] });
      expect(r.status).toBe(422);
      expect(r.body.message.startsWith(r.body.errors['items.0.data'][0])).toBe(true);
    });
  });

  describe('malformed requests', () => {
    const POSTS = ['/v1/upserts', '/v1/query', '/v1/chats', '/v1/search', `/v1/chats/${MISSING_ID}/messages`, `/v1/chats/${MISSING_ID}/feedback`];

    it.each(POSTS)('POST %s with malformed JSON is 400 {message}', async (path) => {
      const r = await http('POST', path, { key: project.key, raw: '{"items": [', headers: { 'Content-Type': 'application/json' } });
      expect(r.status).toBe(400);
      expectMessageOnly(r.body);
    });

    it.each(POSTS)('POST %s with a non-JSON Content-Type is 400 {message}', async (path) => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const r = await http('POST', path, { key: project.key, raw: type === 'text/plain' ? '{"text":"hi"}' : 'text=hi', headers: { 'Content-Type': type } });
        expect({ type, status: r.status }).toEqual({ type, status: 400 });
        expectMessageOnly(r.body);
      }
    });

    it('a body over 10 MiB is 413 {message}', async () => {
      const big = JSON.stringify({ items: [{ id: 'big', data: { text: 'x'.repeat(11 * 1024 * 1024) } }] });
      const r = await http('POST', '/v1/upserts', { key: project.key, raw: big, headers: { 'Content-Type': 'application/json' } });
      expect(r.status).toBe(413);
      expectMessageOnly(r.body);
    });

    it('a body just under 10 MiB is not refused for its size (here it is 422 for its tenant)', async () => {
      const text = 'lorem ipsum '.repeat((9 * 1024 * 1024) / 12);
      const r = await project.post('/upserts', { items: [{ id: 'large', data: { text }, tenant: 0 }] });
      expectValidation(r, ['items.0.tenant']);
    });

    it.each<[string, string]>([
      ['/v1/upserts', 'null'],
      ['/v1/upserts', '[]'],
      ['/v1/upserts', '"items"'],
      ['/v1/upserts', '42'],
      ['/v1/upserts', '{"items":[null]}'],
      ['/v1/upserts', '{"items":[1]}'],
      ['/v1/upserts', '{"items":{}}'],
      ['/v1/upserts', '{"items":[{"id":"a","data":{"t":1}}],"collection":"x"}'],
      ['/v1/upserts', '{"items":[{"id":"a","data":{"t":1}}],"collection":{"slug":"ok","metadata":{"f":{"type":"rgb"}}}}'],
      ['/v1/query', 'null'],
      ['/v1/query', '[]'],
      ['/v1/query', '{"text":{}}'],
      ['/v1/query', '{"text":"x","collections":"faq"}'],
      ['/v1/query', '{"text":"x","identifier":"bob"}'],
      ['/v1/query', '{"text":"x","filter":[]}'],
      ['/v1/query', '{"text":"x","tenant":"1x"}'],
      ['/v1/chats', '{"text":["x"]}'],
      ['/v1/chats', '{"text":"x","collections":[null]}'],
      ['/v1/search', '{"text":"x","limit":"ten"}'],
      ['/v1/search', '{"text":"x","filter":{"a":{"$in":"notalist"}}}'],
    ])('POST %s %s is a 4xx with {message}, never a 500', async (path, raw) => {
      const r = await http('POST', path, { key: project.key, raw, headers: { 'Content-Type': 'application/json' } });
      expect([400, 422]).toContain(r.status);
      expect(typeof r.body.message).toBe('string');
    });

    it.each(['/upserts?page[]=1', '/items?per_page=1e2', '/items?tenant=1&tenant=2', '/chats?type[]=all', '/collections?slug[a]=b', '/items?page=99999999999999999999'])(
      'GET %s is answered without a 500',
      async (path) => {
        const r = await project.get(path);
        expect([200, 422]).toContain(r.status);
        expect(r.body).toEqual(r.status === 200 ? expect.objectContaining({ data: expect.any(Array) }) : expect.objectContaining({ message: expect.any(String) }));
      },
    );
  });
});
