import fc from 'fast-check';
import { Chat, ChatMessage, Collection, createProject, ErrorBody, Item, MISSING_ID, Page, Project, Receipt, SearchHit, Upsert } from '../support/harness';
import { expectShape, object, receiptSpec } from '../support/shapes';

/** Deletes: queued among the project's upserts, applied in order with them, and gone from everything once completed. */
describe('deletes', () => {
  const items = async (p: Project, q = '') => (await p.get<Page<Item>>(`/items?per_page=100${q}`)).body;
  const search = async (p: Project, text: string, extra: Record<string, unknown> = {}) => {
    const r = await p.post<{ data: SearchHit[] }>('/search', { text, limit: 100, ...extra });
    expect(r.status).toBe(200);
    return r.body.data;
  };

  it('of one item by its id: 202 with a receipt polled like an upsert, then found, listed and quoted nowhere', async () => {
    const p = await createProject();
    await p.upsertAndWait([
      { id: 'walrus', data: { title: 'Walrus facts', text: 'The walrus sleeps on floating ice near Svalbard.' }, url: 'https://z.example/walrus' },
      { id: 'puffin', data: { title: 'Puffin facts', text: 'The puffin nests in burrows on Svalbard cliffs.' } },
    ]);
    const before = await items(p);
    const collectionsBefore = (await p.get<Page<Collection>>('/collections')).body;
    const walrus = before.data.find((i) => i.item_id === 'walrus')!;
    const chat = (await p.post<{ data: Chat }>('/chats', { text: 'Where does the walrus sleep?' })).body.data;
    const answer = chat.messages[1];
    expect(answer.sources?.map((s) => s.item_id)).toContain('walrus');

    const r = await p.request<{ data: Receipt }>('DELETE', `/items/${walrus.id}`);
    expect(r.status).toBe(202);
    expectShape(r.body, { data: object(receiptSpec) });
    const done = await p.waitForUpsert(r.body.data.id);
    // items_count (and chunk_size, as on upserts) counts the items the delete removed.
    expect(done).toMatchObject({ status: 'completed', kind: 'delete', target: { item: walrus.id }, error: null, items_count: 1, chunk_size: 1 });
    expect((await p.get<{ data: Upsert[] }>('/upserts')).body.data.map((u) => u.kind)).toEqual(['delete', 'upsert']);

    expect((await p.get(`/items/${walrus.id}`)).status).toBe(404);
    const after = await items(p);
    expect(after.data.map((i) => i.item_id)).toEqual(['puffin']);
    expect(after.meta.total).toBe(1);
    expect(after.data[0].collection.items_count).toBe(1);
    expect(collectionsBefore.data[0].items_count).toBe(2);
    expect((await p.get<Page<Collection>>('/collections')).body.data[0].items_count).toBe(1);
    expect((await search(p, 'walrus ice')).map((h) => h.item_id)).toEqual([]);
    expect((await search(p, 'Svalbard')).map((h) => h.item_id)).toEqual(['puffin']);
    const asked = (await p.post<{ data: ChatMessage }>('/query', { text: 'Where does the walrus sleep?' })).body.data;
    expect(asked.sources?.map((s) => s.item_id) ?? []).not.toContain('walrus');

    // The chat keeps its text; its source says the item was deleted, without its address or passage.
    const kept = (await p.get<{ data: Chat }>(`/chats/${chat.id}`)).body.data;
    expect(kept.messages[1].text).toBe(answer.text);
    const source = kept.messages[1].sources.find((s) => s.item_id === 'walrus')!;
    expect(source).toMatchObject({ id: walrus.id, deleted: true, url: null, snippet: '' });
    expect(kept.messages[1].sources.filter((s) => s.item_id !== 'walrus').every((s) => s.deleted === undefined)).toBe(true);
  });

  it('of an item by the client id: a delete after an upsert wins, an upsert after a delete recreates it', async () => {
    const p = await createProject();
    const collection = { slug: 'notes' };
    // Sent one after another without waiting: applied in the order accepted.
    const first = await p.upsert([{ id: 'n1', data: { text: 'Version one mentions the heron.' } }], collection);
    const del = await p.request<{ data: Receipt }>('DELETE', '/items?item_id=n1&collection=notes');
    expect(first.status).toBe(201);
    expect(del.status).toBe(202);
    expect(await p.waitForUpsert(del.body.data.id)).toMatchObject({ status: 'completed', target: { collection: 'notes', item_id: 'n1' } });
    expect((await items(p)).data).toEqual([]);
    expect(await search(p, 'heron')).toEqual([]);

    const again = await p.upsert([{ id: 'n1', data: { text: 'Version two mentions the egret.' } }], collection);
    await p.deleteAndWait('/items?item_id=n1&collection=notes');
    const third = await p.upsert([{ id: 'n1', data: { text: 'Version three mentions the stork.' } }], collection);
    expect((await p.waitForUpsert(again.body.data.id)).status).toBe('completed');
    expect((await p.waitForUpsert(third.body.data.id)).status).toBe('completed');
    const listed = await items(p);
    expect(listed.data.map((i) => [i.item_id, i.data])).toEqual([['n1', { text: 'Version three mentions the stork.' }]]);
    expect((await search(p, 'stork')).map((h) => h.item_id)).toEqual(['n1']);
    expect(await search(p, 'egret heron')).toEqual([]);
    // An id the collection never held: accepted (queued upserts may create it), and completed having removed nothing.
    expect(await p.deleteAndWait('/items?item_id=never')).toMatchObject({ status: 'completed', items_count: 0 });
  });

  it('of a collection: its items and the collection itself, other collections untouched', async () => {
    const p = await createProject();
    await p.upsertAndWait(
      [
        { id: 'x1', data: { text: 'Otters hold hands while sleeping.' } },
        { id: 'x2', data: { text: 'Otters use stones as tools.' } },
      ],
      { slug: 'otters' },
    );
    await p.upsertAndWait([{ id: 'y1', data: { text: 'Beavers build dams from branches.' } }], { slug: 'beavers' });
    const otters = (await p.get<Page<Collection>>('/collections?slug=otters')).body.data[0];
    const done = await p.deleteAndWait(`/collections/${otters.id}`);
    expect(done.target).toEqual({ collection: 'otters' });
    expect(done.items_count).toBe(2);
    expect((await p.get(`/collections/${otters.id}`)).status).toBe(404);
    expect((await p.get<Page<Collection>>('/collections')).body.data.map((c) => c.slug)).toEqual(['beavers']);
    expect((await items(p)).data.map((i) => i.item_id)).toEqual(['y1']);
    expect(await search(p, 'otters stones')).toEqual([]);
    // The slug is free again: an upsert makes a new collection of it.
    await p.upsertAndWait([{ id: 'x1', data: { text: 'Otters are back.' } }], { slug: 'otters' });
    expect((await items(p, '&collection=otters')).data.map((i) => [i.item_id, i.collection.items_count])).toEqual([['x1', 1]]);
  });

  it('of a collection a chat was asked in: its follow-ups are answered, from nothing, and stream', async () => {
    const p = await createProject();
    await p.upsertAndWait([{ id: 'r1', data: { text: 'The rowing club meets on Tuesdays.' }, metadata: { kind: 'club' } }], {
      slug: 'rowing',
      metadata: { kind: { type: 'string' } },
    });
    const chat = (await p.post<{ data: Chat }>('/chats', { text: 'When does the rowing club meet?', collections: ['rowing'], filter: { kind: 'club' } })).body.data;
    expect(chat.messages[1].sources?.map((s) => s.item_id)).toEqual(['r1']);
    const rowing = (await p.get<Page<Collection>>('/collections?slug=rowing')).body.data[0];
    await p.deleteAndWait(`/collections/${rowing.id}`);
    const follow = await p.post<{ data: ChatMessage }>(`/chats/${chat.id}/messages`, { text: 'And on which days does the rowing club meet?' });
    expect(follow.status).toBe(201);
    expect(follow.body.data.sources).toEqual([]);
    const streamed = await p.post(`/chats/${chat.id}/messages`, { text: 'Does the rowing club still meet?', stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('event: done');
    expect(streamed.text).not.toContain('event: error');
  });

  it('of one of the collections a chat was asked in: its follow-ups search the others', async () => {
    const p = await createProject();
    await p.upsertAndWait([{ id: 'r1', data: { text: 'The rowing club meets on Tuesdays.' } }], { slug: 'rowing' });
    await p.upsertAndWait([{ id: 's1', data: { text: 'The sailing club meets on Thursdays.' } }], { slug: 'sailing' });
    const chat = (await p.post<{ data: Chat }>('/chats', { text: 'When does the rowing club meet?', collections: ['rowing', 'sailing'] })).body.data;
    const rowing = (await p.get<Page<Collection>>('/collections?slug=rowing')).body.data[0];
    await p.deleteAndWait(`/collections/${rowing.id}`);
    const follow = await p.post<{ data: ChatMessage }>(`/chats/${chat.id}/messages`, { text: 'And when does the sailing club meet?' });
    expect(follow.status).toBe(201);
    expect(follow.body.data.sources?.map((s) => s.item_id)).toEqual(['s1']);
  });

  it('of a tenant: its items, chats, messages and users; other tenants keep theirs', async () => {
    const p = await createProject('multi');
    await p.upsertAndWait([
      { id: 'a', tenant: 1, data: { text: 'Tenant one sells blue kayaks.' } },
      { id: 'b', tenant: 2, data: { text: 'Tenant two sells blue canoes.' } },
    ]);
    const mine = (await p.post<{ data: Chat }>('/chats', { text: 'What is blue?', tenant: 1, identifier: { id: 'u1' } })).body.data;
    const theirs = (await p.post<{ data: Chat }>('/chats', { text: 'What is blue?', tenant: 2, identifier: { id: 'u2' } })).body.data;
    const done = await p.deleteAndWait('/tenants/1');
    expect(done.target).toEqual({ tenant: 1 });
    expect(done.items_count).toBe(1);
    expect((await items(p)).data.map((i) => i.item_id)).toEqual(['b']);
    expect(await search(p, 'kayaks', { tenant: 1 })).toEqual([]);
    expect((await search(p, 'canoes', { tenant: 2 })).map((h) => h.item_id)).toEqual(['b']);
    expect((await p.get(`/chats/${mine.id}`)).status).toBe(404);
    expect((await p.get<Page<Chat>>('/chats?tenant=1')).body.data).toEqual([]);
    expect((await p.get<Page<Chat>>('/chats?user=u1')).body.data).toEqual([]);
    expect((await p.get<{ data: Chat }>(`/chats/${theirs.id}`)).body.data.messages).toHaveLength(2);
  });

  it("answer 404 for ids that do not exist or are another project's, and 422 for a malformed client-id delete", async () => {
    const p = await createProject();
    const other = await createProject();
    await other.upsertAndWait([{ id: 'o', data: { text: 'Not yours.' } }]);
    const theirs = (await items(other)).data[0];
    for (const path of [
      `/items/${MISSING_ID}`,
      `/items/${theirs.id}`,
      '/items/not-an-id',
      `/collections/${theirs.collection.id}`,
      `/collections/${MISSING_ID}`,
      '/tenants/0',
      '/tenants/abc',
      '/tenants/2147483648',
      '/tenants/1.5',
      '/tenants/-1',
    ]) {
      const r = await p.request<ErrorBody>('DELETE', path);
      expect([path, r.status]).toEqual([path, 404]);
      expect(Object.keys(r.body)).toEqual(['message']);
    }
    const cases: Array<[string, string]> = [
      ['/items', 'item_id'],
      ['/items?item_id=', 'item_id'],
      ['/items?item_id=a&colection=x', 'colection'],
      ['/items?item_id=a&item_id=b', 'item_id'],
      ['/items?item_id=a&collection=Not%20a%20slug', 'collection'],
    ];
    for (const [path, field] of cases) {
      const r = await p.request<ErrorBody>('DELETE', path);
      expect([path, r.status, Object.keys(r.body.errors ?? {})]).toEqual([path, 422, [field]]);
    }
    expect((await items(other)).data.map((i) => i.item_id)).toEqual(['o']);
    expect((await p.get<{ data: Upsert[] }>('/upserts')).body.data).toEqual([]);
  });

  it('take Idempotency-Key: a retried DELETE gets the same receipt and queues nothing more', async () => {
    const p = await createProject();
    await p.upsertAndWait([{ id: 'once', data: { text: 'Deleted once.' } }]);
    const headers = { 'Idempotency-Key': 'delete-once-1' };
    const first = await p.request<{ data: Receipt }>('DELETE', '/items?item_id=once', { headers });
    const again = await p.request<{ data: Receipt }>('DELETE', '/items?item_id=once', { headers });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await p.waitForUpsert(first.body.data.id);
    expect((await p.get<{ data: Upsert[] }>('/upserts')).body.data.map((u) => u.kind)).toEqual(['delete', 'upsert']);
  });

  it('interleaved at random with upserts, end in the state that applying them in order gives', async () => {
    const ids = ['i0', 'i1', 'i2', 'i3'];
    const slugs = ['red', 'blue'];
    type Op = { upsert: { id: string; slug: string; v: number } } | { del: { id: string; slug: string } } | { drop: { slug: string } };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 3, arbitrary: fc.record({ id: fc.constantFrom(...ids), slug: fc.constantFrom(...slugs), v: fc.nat(999) }).map((upsert) => ({ upsert })) },
      { weight: 2, arbitrary: fc.record({ id: fc.constantFrom(...ids), slug: fc.constantFrom(...slugs) }).map((del) => ({ del })) },
      { weight: 1, arbitrary: fc.record({ slug: fc.constantFrom(...slugs) }).map((drop) => ({ drop })) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const p = await createProject();
        // Both collections exist first, so that a collection delete has an id to name.
        await p.upsertAndWait([{ id: 'seed', data: { text: 'seed' } }], { slug: 'red' });
        await p.upsertAndWait([{ id: 'seed', data: { text: 'seed' } }], { slug: 'blue' });
        const collections = new Map((await p.get<Page<Collection>>('/collections')).body.data.map((c) => [c.slug, c.id]));
        const model = new Map<string, string>([
          ['red/seed', 'seed'],
          ['blue/seed', 'seed'],
        ]);
        const receipts: string[] = [];
        for (const o of ops) {
          let r;
          if ('upsert' in o) {
            const text = `word${o.upsert.v} of ${o.upsert.id}`;
            r = await p.upsert([{ id: o.upsert.id, data: { text } }], { slug: o.upsert.slug });
            model.set(`${o.upsert.slug}/${o.upsert.id}`, text);
          } else if ('del' in o) {
            r = await p.request('DELETE', `/items?item_id=${o.del.id}&collection=${o.del.slug}`);
            model.delete(`${o.del.slug}/${o.del.id}`);
          } else {
            // A collection deleted once is gone: a later delete of its old id is 404 and changes nothing.
            const id = collections.get(o.drop.slug);
            if (!id) continue;
            r = await p.request('DELETE', `/collections/${id}`);
            collections.delete(o.drop.slug);
            for (const key of [...model.keys()]) if (key.startsWith(`${o.drop.slug}/`)) model.delete(key);
          }
          expect([201, 202]).toContain(r.status);
          receipts.push(r.body.data.id);
        }
        for (const id of receipts) expect((await p.waitForUpsert(id)).status).toBe('completed');
        const listed = (await items(p)).data.map((i) => [`${i.collection.slug}/${i.item_id}`, i.data?.text]).sort();
        expect(listed).toEqual([...model].sort());
        for (const [key, text] of model) {
          const hits = await search(p, text, { collections: [key.split('/')[0]] });
          expect(hits.map((h) => h.item_id)).toContain(key.split('/')[1]);
        }
        const found = await search(p, ops.flatMap((o) => ('upsert' in o ? [`word${o.upsert.v}`] : [])).join(' ') || 'word');
        const present = new Set([...model.keys()]);
        for (const h of found) expect(present.has(`${h.collection}/${h.item_id}`)).toBe(true);
      }),
      { numRuns: 6, seed: 25 },
    );
  }, 300_000);
});
