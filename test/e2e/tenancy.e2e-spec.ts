import { Chat, ChatMessage, Collection, createProject, Item, Page, Project, SearchHit, Upsert } from '../support/harness';
import { expectMessageOnly, expectValidation } from '../support/shapes';

const sourceIds = (m: ChatMessage) => (m.sources ?? []).map((s) => s.item_id);

describe('two projects cannot see each other', () => {
  let a: Project;
  let b: Project;
  let aItem: Item;
  let aUpsert: Upsert;
  let aChat: Chat;
  let aQuery: ChatMessage;

  beforeAll(async () => {
    [a, b] = await Promise.all([createProject(), createProject()]);
    aUpsert = await a.upsertAndWait([{ id: 'secret', data: { title: 'Alpha launch', text: 'Project alpha launches on the third of March.' } }], { slug: 'plans' });
    await b.upsertAndWait([{ id: 'other', data: { title: 'Beta', text: 'Project beta ships in the autumn.' } }]);
    aItem = await a.item('secret');
    aChat = (await a.post<{ data: Chat }>('/chats', { text: 'When does project alpha launch?', identifier: { id: 'shared-user' } })).body.data;
    aQuery = (await a.post<{ data: ChatMessage }>('/query', { text: 'When does project alpha launch?', identifier: { id: 'shared-user' } })).body.data;
  });

  it("lists show only the project's own resources", async () => {
    expect((await b.get<Page<Item>>('/items')).body.data.map((i) => i.item_id)).toEqual(['other']);
    expect((await b.get<Page<Item>>('/items?item_id=secret')).body.data).toEqual([]);
    expect((await b.get<Page<Collection>>('/collections')).body.data.map((c) => c.slug)).toEqual(['default']);
    expect((await b.get<Page<Upsert>>('/upserts')).body.data.map((u) => u.id)).not.toContain(aUpsert.id);
    expect((await b.get<Page<Upsert>>('/upserts')).body.meta.total).toBe(1);
    expect((await b.get<Page<Chat>>('/chats?type=all')).body.data).toEqual([]);
    expect((await b.get<Page<Chat>>('/chats?type=all&user=shared-user')).body.data).toEqual([]);
    expect((await a.get<Page<Chat>>('/chats?type=all&user=shared-user')).body.meta.total).toBe(2);
  });

  it("another project's ids are 404 on every route", async () => {
    const gets = [
      `/items/${aItem.id}`,
      `/collections/${aItem.collection.id}`,
      `/upserts/${aUpsert.id}`,
      `/chats/${aChat.id}`,
      `/chats/${aChat.id}/messages/${aChat.messages[1].id}`,
      `/chats/${aQuery.chat_id}`,
      `/chats/${aQuery.chat_id}/messages/${aQuery.id}`,
    ];
    for (const path of gets) {
      const r = await b.get(path);
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
      expectMessageOnly(r.body);
    }
    const posts: Array<[string, unknown]> = [
      [`/chats/${aChat.id}/messages`, { text: 'and then?' }],
      [`/chats/${aChat.id}/feedback`, { feedback: 'negative' }],
      [`/chats/${aChat.id}/messages/${aChat.messages[1].id}/feedback`, { feedback: 'negative' }],
      [`/chats/${aQuery.chat_id}/messages`, { text: 'and then?' }],
    ];
    for (const [path, body] of posts) {
      const r = await b.post(path, body);
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
      expectMessageOnly(r.body);
    }
    // Nothing B tried changed A's chat.
    const still = (await a.get<{ data: Chat }>(`/chats/${aChat.id}`)).body.data;
    expect(still.messages).toHaveLength(2);
    expect(still.messages[1].feedback).toBeNull();
  });

  it("questions never see the other project's items", async () => {
    const q = await b.post<{ data: ChatMessage }>('/query', { text: 'When does project alpha launch?' });
    expect(q.status).toBe(201);
    expect(sourceIds(q.body.data)).not.toContain('secret');
    expect(q.body.data.text).not.toMatch(/third of March/i);
    const c = await b.post<{ data: Chat }>('/chats', { text: 'When does project alpha launch in March?' });
    expect(sourceIds(c.body.data.messages[1])).not.toContain('secret');
    expect(c.body.data.messages[1].text).not.toMatch(/third of March/i);
    const s = await b.post<{ data: SearchHit[] }>('/search', { text: 'alpha launch third March' });
    expect(s.body.data.map((h) => h.item_id)).not.toContain('secret');
    // A's collection slug does not exist for B.
    expectValidation(await b.post('/query', { text: 'alpha', collections: ['plans'] }), ['collections.0']);
    // And A still sees its own.
    const own = await a.post<{ data: ChatMessage }>('/query', { text: 'When does project alpha launch?' });
    expect(sourceIds(own.body.data)).toContain('secret');
    expect(own.body.data.text).toMatch(/third of March/i);
  });

  it('the same client item id in two projects is two items', async () => {
    await b.upsertAndWait([{ id: 'secret', data: { text: "B's own secret item." } }], { slug: 'plans' });
    const bItem = await b.item('secret');
    expect(bItem.id).not.toBe(aItem.id);
    expect(bItem.collection.id).not.toBe(aItem.collection.id);
    expect((await a.item('secret')).data).toEqual({ title: 'Alpha launch', text: 'Project alpha launches on the third of March.' });
  });
});

describe('a multi-tenant project', () => {
  let m: Project;
  beforeAll(async () => {
    m = await createProject('multi');
    await m.upsertAndWait([
      { id: 'plan-1', tenant: 1, data: { title: 'Plan', text: 'Your plan renews on the first of June. Support is by email.' } },
      { id: 'plan-2', tenant: 2, data: { title: 'Plan', text: 'Your plan renews on the tenth of July. Support is by phone.' } },
      { id: 'notes-2', tenant: 2, data: { title: 'Notes', text: 'Tenant two prefers invoices in euros.' } },
    ]);
  });

  it('requires a tenant on every upsert item (422 items.N.tenant) and stores nothing', async () => {
    const r = await m.post('/upserts', {
      items: [
        { id: 'a', tenant: 1, data: { t: 1 } },
        { id: 'b', data: { t: 1 } },
        { id: 'c', tenant: 2, data: { t: 1 } },
        { id: 'd', data: { t: 1 } },
      ],
    });
    expectValidation(r, ['items.1.tenant', 'items.3.tenant']);
    expectValidation(await m.post('/upserts', { items: [{ id: 'a', tenant: 0, data: { t: 1 } }] }), ['items.0.tenant']);
    // null is no tenant either: such an item would belong to no organisation.
    expectValidation(
      await m.post('/upserts', {
        items: [
          { id: 'a', tenant: 1, data: { t: 1 } },
          { id: 'e', tenant: null, data: { t: 1 } },
        ],
      }),
      ['items.1.tenant'],
    );
    expect((await m.get<Page<Item>>('/items?item_id=a')).body.data).toEqual([]);
    expect((await m.get<Page<Item>>('/items?item_id=e')).body.data).toEqual([]);
  });

  it.each(['/query', '/chats', '/search'])('requires a tenant on POST %s (422 tenant)', async (route) => {
    expectValidation(await m.post(route, { text: 'When does my plan renew?' }), ['tenant']);
    expectValidation(await m.post(route, { text: 'When does my plan renew?', tenant: 0 }), ['tenant']);
    expectValidation(await m.post(route, { text: 'When does my plan renew?', tenant: -1 }), ['tenant']);
    expectValidation(await m.post(route, { text: 'When does my plan renew?', tenant: 1.5 }), ['tenant']);
    expectValidation(await m.post(route, { text: 'When does my plan renew?', tenant: null }), ['tenant']);
  });

  it("a question only sees its own tenant's items", async () => {
    const one = await m.post<{ data: ChatMessage }>('/query', { text: 'When does my plan renew?', tenant: 1 });
    expect(one.status).toBe(201);
    expect(one.body.data.text).toContain('first of June');
    expect(one.body.data.text).not.toContain('tenth of July');
    expect(sourceIds(one.body.data)).toEqual(['plan-1']);
    const two = await m.post<{ data: ChatMessage }>('/query', { text: 'When does my plan renew?', tenant: 2 });
    expect(two.body.data.text).toContain('tenth of July');
    expect(sourceIds(two.body.data).every((id) => id === 'plan-2' || id === 'notes-2')).toBe(true);
    const none = await m.post<{ data: ChatMessage }>('/query', { text: 'When does my plan renew?', tenant: 3 });
    expect(none.status).toBe(201);
    expect(none.body.data.sources).toEqual([]);
    expect(none.body.data.text).not.toMatch(/June|July/);
    const query = (await m.get<{ data: Chat }>(`/chats/${one.body.data.chat_id}`)).body.data;
    expect(query.tenant).toBe(1);
  });

  it('search is restricted to the tenant too', async () => {
    const hits = async (tenant: number) => (await m.post<{ data: SearchHit[] }>('/search', { text: 'plan renews support invoices', tenant })).body.data;
    expect((await hits(1)).map((h) => h.item_id)).toEqual(['plan-1']);
    expect((await hits(1)).every((h) => h.tenant === 1)).toBe(true);
    expect((await hits(2)).map((h) => h.item_id).sort()).toEqual(['notes-2', 'plan-2']);
    expect(await hits(3)).toEqual([]);
  });

  it('a chat keeps its tenant and its follow-ups inherit it', async () => {
    const chat = await m.post<{ data: Chat }>('/chats', { text: 'When does my plan renew?', tenant: 2 });
    expect(chat.status).toBe(201);
    expect(chat.body.data.tenant).toBe(2);
    expect(chat.body.data.messages[1].text).toContain('tenth of July');
    const follow = await m.post<{ data: ChatMessage }>(`/chats/${chat.body.data.id}/messages`, { text: 'How is support given, and when does the plan renew?' });
    expect(follow.status).toBe(201);
    expect(sourceIds(follow.body.data)).not.toContain('plan-1');
    expect(follow.body.data.text).not.toMatch(/first of June|by email/);
    expect(follow.body.data.text).toMatch(/phone|tenth of July/);
    // A tenant in the follow-up body cannot switch the chat to another tenant.
    const sneaky = await m.post<{ data: ChatMessage }>(`/chats/${chat.body.data.id}/messages`, { text: 'When does the plan renew?', tenant: 1 });
    expect([201, 422]).toContain(sneaky.status);
    if (sneaky.status === 201) expect(sourceIds(sneaky.body.data)).not.toContain('plan-1');
  });

  it('lists filter by tenant', async () => {
    expect((await m.get<Page<Item>>('/items?tenant=2')).body.data.map((i) => i.item_id).sort()).toEqual(['notes-2', 'plan-2']);
    expect((await m.get<Page<Item>>('/items?tenant=1')).body.data.map((i) => i.item_id)).toEqual(['plan-1']);
    const chats = (await m.get<Page<Chat>>('/chats?tenant=2&type=all')).body.data;
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.every((c) => c.tenant === 2)).toBe(true);
    expect((await m.get<Page<Chat>>('/chats?tenant=5&type=all')).body.data).toEqual([]);
  });
});

describe('a single-tenant project', () => {
  it('stores tenants as given but never restricts by them', async () => {
    const s = await createProject('single');
    await s.upsertAndWait([
      { id: 't5', tenant: 5, data: { text: 'The lighthouse keeper lives on the island.' } },
      { id: 'none', data: { text: 'The lighthouse lamp is green.' } },
    ]);
    expect((await s.item('t5')).tenant).toBe(5);
    expect((await s.item('none')).tenant).toBeNull();
    const hits = (await s.post<{ data: SearchHit[] }>('/search', { text: 'lighthouse', tenant: 9 })).body.data;
    expect(hits.map((h) => h.item_id).sort()).toEqual(['none', 't5']);
    const q = await s.post<{ data: ChatMessage }>('/query', { text: 'Who lives on the island?', tenant: 9 });
    expect(q.status).toBe(201);
    expect(sourceIds(q.body.data)).toContain('t5');
    const c = await s.post<{ data: Chat }>('/chats', { text: 'What colour is the lighthouse lamp?', tenant: 9 });
    expect(c.body.data.tenant).toBe(9);
    expect(sourceIds(c.body.data.messages[1])).toContain('none');
  });
});
