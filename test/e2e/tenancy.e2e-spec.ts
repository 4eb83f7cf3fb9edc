import { Project } from '../support/client';

describe('tenancy and isolation', () => {
  let a: Project;
  let b: Project;
  let aItem: any;
  let aChat: any;

  beforeAll(async () => {
    [a, b] = await Promise.all([Project.create(), Project.create()]);
    await a.upsert([{ id: 'secret', data: { title: 'Alpha launch', text: 'Project alpha launches on the third of March.' } }]);
    await b.upsert([{ id: 'other', data: { title: 'Beta', text: 'Project beta ships later.' } }]);
    aItem = (await a.get('/items')).body.data[0];
    aChat = (await a.post('/chats', { text: 'When does project alpha launch?' })).body.data;
  });

  it('two projects cannot see each other', async () => {
    expect((await b.get('/items')).body.data.map((i: any) => i.item_id)).toEqual(['other']);
    expect((await b.get(`/items/${aItem.id}`)).status).toBe(404);
    expect((await b.get(`/collections/${aItem.collection.id}`)).status).toBe(404);
    expect((await b.get(`/upserts/${aItem.upserts[0].id}`)).status).toBe(404);
    expect((await b.get(`/chats/${aChat.id}`)).status).toBe(404);
    expect((await b.get(`/chats/${aChat.id}/messages/${aChat.messages[1].id}`)).status).toBe(404);
    expect((await b.post(`/chats/${aChat.id}/messages`, { text: 'and then?' })).status).toBe(404);
    expect((await b.post(`/chats/${aChat.id}/feedback`, { feedback: 'negative' })).status).toBe(404);
    expect((await b.get('/chats?type=all')).body.data).toEqual([]);
    const q = await b.post('/query', { text: 'When does project alpha launch?' });
    expect(q.body.data.sources.map((s: any) => s.item_id)).not.toContain('secret');
    expect(q.body.data.text).not.toContain('third of March');
    expect((await b.post('/search', { text: 'alpha launch March' })).body.data.map((h: any) => h.item_id)).not.toContain('secret');
  });

  describe('a multi-tenant project', () => {
    let m: Project;
    beforeAll(async () => {
      m = await Project.create('multi');
      await m.upsert([
        { id: 'plan-1', tenant: 1, data: { title: 'Plan', text: 'Your plan renews on the first of June.' } },
        { id: 'plan-2', tenant: 2, data: { title: 'Plan', text: 'Your plan renews on the tenth of July.' } },
      ]);
    });

    it('requires a tenant on every item, query and chat', async () => {
      const up = await m.post('/upserts', { items: [{ id: 'a', tenant: 1, data: { t: 1 } }, { id: 'b', data: { t: 1 } }] });
      expect(up.status).toBe(422);
      expect(Object.keys(up.body.errors)).toEqual(['items.1.tenant']);
      for (const route of ['/query', '/chats', '/search']) {
        const r = await m.post(route, { text: 'When does my plan renew?' });
        expect(r.status).toBe(422);
        expect(Object.keys(r.body.errors)).toEqual(['tenant']);
      }
    });

    it('answers each tenant only from its own items, follow-ups included', async () => {
      const one = await m.post('/query', { text: 'When does my plan renew?', tenant: 1 });
      expect(one.body.data.text).toContain('first of June');
      expect(one.body.data.sources.map((s: any) => s.item_id)).toEqual(['plan-1']);
      const chat = await m.post('/chats', { text: 'When does my plan renew?', tenant: 2 });
      expect(chat.body.data.tenant).toBe(2);
      expect(chat.body.data.messages[1].text).toContain('tenth of July');
      const follow = await m.post(`/chats/${chat.body.data.id}/messages`, { text: 'When does the plan renew again?' });
      expect(follow.body.data.sources.map((s: any) => s.item_id)).toEqual(['plan-2']);
      expect((await m.post('/search', { text: 'plan renews', tenant: 3 })).body.data).toEqual([]);
      expect((await m.get('/items?tenant=2')).body.data.map((i: any) => i.item_id)).toEqual(['plan-2']);
      expect((await m.get('/chats?tenant=1')).body.data).toEqual([]);
    });
  });

  it('a single-tenant project stores tenants but never restricts by them', async () => {
    const s = await Project.create('single');
    await s.upsert([{ id: 't', tenant: 5, data: { text: 'Tenants do not matter here.' } }]);
    expect((await s.get('/items')).body.data[0].tenant).toBe(5);
    const r = await s.post('/search', { text: 'tenants matter', tenant: 9 });
    expect(r.body.data.map((h: any) => h.item_id)).toEqual(['t']);
  });
});
