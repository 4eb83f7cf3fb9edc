import { admin, Collection, createProject, Item, itIn, Page, Project, request, sharedService, startDedicatedGateway } from '../support/harness';

/**
 * The gateway keeps list answers until an upsert of the project settles (while upserts are in progress, for
 * LIST_CACHE_PROGRESS_MS at most). What a client must never see: a list older than an upsert it has already seen
 * completed, on this gateway or another.
 */
describe('kept list answers', () => {
  let project: Project;

  beforeAll(async () => {
    project = await createProject();
    await project.upsertAndWait([{ id: 'a', data: { title: 'First', text: 'The first item.' }, url: 'https://a.example/1' }]);
  });

  const list = async (p: Project = project) => {
    const r = await p.get<Page<Item>>('/items?per_page=100');
    expect(r.status).toBe(200);
    return r.body;
  };
  const collections = async (p: Project = project) => (await p.get<Page<Collection>>('/collections')).body;

  it('show every change as soon as its upsert is completed, even while the list is read all along', async () => {
    for (let round = 1; round <= 5; round++) {
      await list();
      await list();
      await collections();
      const accepted = await project.upsert([
        { id: 'a', data: { title: 'First', text: `Round ${round}.` }, url: `https://a.example/${round + 1}` },
        { id: `new-${round}`, data: { title: `New ${round}`, text: 'Another item.' } },
      ]);
      expect(accepted.status).toBe(201);
      // Readers all along: whatever they keep while the upsert is processed must not outlive its completion.
      let reading = true;
      const readers = Array.from({ length: 3 }, async () => {
        while (reading) await list();
      });
      const done = await project.waitForUpsert(accepted.body.data.id);
      reading = false;
      await Promise.all(readers);
      expect(done.status).toBe('completed');

      const after = await list();
      expect(after.meta.total).toBe(round + 1);
      expect(after.data.map((i) => i.item_id).sort()).toEqual(['a', ...Array.from({ length: round }, (_, i) => `new-${i + 1}`)].sort());
      const a = after.data.find((i) => i.item_id === 'a')!;
      expect(a.url).toBe(`https://a.example/${round + 1}`);
      expect(a.data).toEqual({ title: 'First', text: `Round ${round}.` });
      expect(a.upserts[0]).toEqual(done);
      expect(a.collection.items_count).toBe(round + 1);
      expect((await collections()).data.map((c) => [c.slug, c.items_count])).toEqual([['default', round + 1]]);
    }
  });

  it('are answered from memory while the list is unchanged (askdata_list_cache_total)', async () => {
    const hits = async () => {
      const text = await (await fetch(`${sharedService().adminUrl}/metrics`)).text();
      return Number(/^askdata_list_cache_total\{outcome="hit"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    await list();
    const before = await hits();
    const first = await list();
    expect(await list()).toEqual(first);
    expect(await hits()).toBeGreaterThanOrEqual(before + 2);
  });

  it('answer If-None-Match with 304 until the list changes', async () => {
    const first = await project.get('/items');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    // (fetch adds `Cache-Control: no-cache` to a conditional request unless told otherwise; a browser revalidating does not)
    const conditional = { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' };
    const again = await project.request('GET', '/items', { headers: conditional });
    expect(again.status).toBe(304);
    await project.upsertAndWait([{ id: 'etag-probe', data: { text: 'Changes the list.' } }]);
    const changed = await project.request('GET', '/items', { headers: conditional });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((changed.body as Page<Item>).data[0].item_id).toBe('etag-probe');
  });

  it('carry an ETag as every read does, while the answer to a search, a question or an upsert carries none', async () => {
    const search = await project.post('/search', { text: 'first item', limit: 3 });
    expect(search.status).toBe(200);
    const query = await project.post('/query', { text: 'Which item is first?' });
    expect(query.status).toBe(201);
    const accepted = await project.upsert([{ id: 'etag-less', data: { text: 'Accepted without an ETag.' } }]);
    expect(accepted.status).toBe(201);
    for (const r of [search, query, accepted]) expect(r.headers.get('etag')).toBeNull();
    // A read's answer keeps its ETag, and a conditional read its 304 (the item's collection counts the upsert once done).
    expect((await project.waitForUpsert(accepted.body.data.id)).status).toBe('completed');
    const { id } = await project.item('a');
    const item = await project.get(`/items/${id}`);
    expect(item.status).toBe(200);
    const etag = item.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    const again = await project.request('GET', `/items/${id}`, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('still go through the key check and carry each request its own id', async () => {
    const other = await createProject();
    await other.upsertAndWait([{ id: 'x', data: { text: 'Only for this key.' } }]);
    const a = await other.request('GET', '/items', { headers: { 'X-Request-Id': 'list-one' } });
    const b = await other.request('GET', '/items', { headers: { 'X-Request-Id': 'list-two' } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.headers.get('x-request-id'), b.headers.get('x-request-id')]).toEqual(['list-one', 'list-two']);
    expect(b.text).toBe(a.text);
    expect((await project.get('/items')).text).not.toContain('Only for this key.');
    expect((await admin('DELETE', `/admin/keys/${other.keyId}`)).status).toBe(204);
    expect((await other.get('/items')).status).toBe(401);
    expect((await other.get('/collections')).status).toBe(401);
  });

  itIn('distributed')('a list kept by one gateway is dropped when an upsert through another completes', async () => {
    const second = await startDedicatedGateway(sharedService(), {});
    try {
      const there = project.via(second.url);
      const before = await list(there);
      await list(there);
      const done = await project.upsertAndWait([{ id: 'via-first', data: { text: 'Sent through the first gateway.' } }]);
      const after = await list(there);
      expect(after.meta.total).toBe(before.meta.total + 1);
      expect(after.data[0]).toMatchObject({ item_id: 'via-first', upserts: [done] });
      const direct = await request<Page<Item>>(second.url, 'GET', '/v1/items?per_page=100', { key: project.key });
      expect(direct.body).toEqual(after);
    } finally {
      await second.stop();
    }
  });
});
