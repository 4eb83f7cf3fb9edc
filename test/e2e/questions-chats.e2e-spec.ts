import { MISSING, Project, TIMESTAMP, UUID } from '../support/client';

const FAQ = [
  { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am.' }, metadata: { kind: 'faq', year: 2024 } },
  { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt. Refunds take five business days.' }, metadata: { kind: 'policy', year: 2023 } },
  { id: 'shipping', data: { title: 'Shipping', text: 'Orders ship within two days. Express delivery costs 12 euros.' }, metadata: { kind: 'policy', year: 2024 } },
];

function citationsOf(text: string): number[] {
  return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}

describe('questions and chats', () => {
  let project: Project;
  beforeAll(async () => {
    project = await Project.create();
    await project.upsert(FAQ, { slug: 'faq', metadata: { kind: { type: 'enum', options: ['faq', 'policy'] } } });
  });

  it('answers a one-off query with a cited message', async () => {
    const r = await project.post('/query', { text: 'How many days do I have to return an item?' });
    expect(r.status).toBe(201);
    const m = r.body.data;
    expect(m).toMatchObject({ id: expect.stringMatching(UUID), chat_id: expect.stringMatching(UUID), role: 'assistant', feedback: null, user: null, created_at: expect.stringMatching(TIMESTAMP) });
    expect(m.text).toContain('30 days');
    expect(m.sources[0]).toMatchObject({ index: 1, item_id: 'returns', collection: 'faq', id: expect.stringMatching(UUID) });
    for (const n of citationsOf(m.text)) expect(m.sources.map((s: any) => s.index)).toContain(n);
    expect(m.text_html).toContain('<p>');
  });

  it('says plainly when the data does not contain the answer, citing nothing', async () => {
    const r = await project.post('/query', { text: 'Who won the football world cup in 1998?' });
    expect(r.status).toBe(201);
    expect(r.body.data.sources).toEqual([]);
    expect(citationsOf(r.body.data.text)).toEqual([]);
    expect(r.body.data.text).toMatch(/couldn't find|does not say|not in the data/i);
  });

  it('ranks search results and applies collections and metadata filters', async () => {
    const r = await project.post('/search', { text: 'express delivery cost' });
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toMatchObject({ item_id: 'shipping', collection: 'faq', tenant: null, metadata: { kind: 'policy' } });
    expect(r.body.data[0].score).toBeGreaterThan(0);
    expect(r.body.data[0].snippet).toContain('Express');
    const policies = await project.post('/search', { text: 'shop open receipt', filter: { kind: 'policy' } });
    expect(policies.body.data.map((h: any) => h.item_id)).toEqual(['returns']);
    const ranged = await project.post('/search', { text: 'shop open days receipt ship', filter: { year: { $gte: 2024 } } });
    expect(ranged.body.data.map((h: any) => h.item_id).sort()).toEqual(['hours', 'shipping']);
    const notFaq = await project.post('/search', { text: 'shop open days receipt ship', filter: { kind: { $ne: 'faq' } } });
    expect(notFaq.body.data.map((h: any) => h.item_id).sort()).toEqual(['returns', 'shipping']);
    const either = await project.post('/search', { text: 'shop open days receipt ship', filter: { kind: { $in: ['faq'] } }, limit: 1 });
    expect(either.body.data.map((h: any) => h.item_id)).toEqual(['hours']);
  });

  it('rejects unknown collections, unknown filter fields and wrongly typed values with 422', async () => {
    const unknown = await project.post('/query', { text: 'hours', collections: ['faq', 'nope'] });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['collections.1']);
    const field = await project.post('/search', { text: 'hours', filter: { colour: 'red' } });
    expect(field.status).toBe(422);
    expect(Object.keys(field.body.errors)).toEqual(['filter.colour']);
    expect((await project.post('/search', { text: 'hours', filter: { year: 'recent' } })).status).toBe(422);
    expect((await project.post('/search', { text: 'hours', filter: { kind: 'other' } })).status).toBe(422);
    expect((await project.post('/search', { text: 'hours', filter: { year: { $regex: '.*' } } })).status).toBe(422);
    expect((await project.post('/query', { text: '' })).body.errors).toHaveProperty('text');
    expect((await project.post('/query', { text: 'x'.repeat(4001) })).body.errors).toHaveProperty('text');
    expect((await project.post('/search', { text: 'x', limit: 101 })).body.errors).toHaveProperty('limit');
  });

  describe('chats', () => {
    let chat: any;
    beforeAll(async () => {
      const question = 'When does the shop open on Saturdays, and is that earlier or later than on weekdays when it opens at nine?';
      const r = await project.post('/chats', { text: question, identifier: { id: 'user-7', name: 'Ada', email: 'ada@example.com' } });
      expect(r.status).toBe(201);
      chat = r.body.data;
    });

    it('returns the chat with the question and the answer, and the user from the identifier', () => {
      expect(chat).toMatchObject({ id: expect.stringMatching(UUID), tenant: null, type: 'chat', created_at: expect.stringMatching(TIMESTAMP) });
      expect(chat.name.length).toBeLessThanOrEqual(80);
      expect(chat.name).toBe('When does the shop open on Saturdays, and is that earlier or later than on');
      expect(chat.user).toMatchObject({ id: 'user-7', name: 'Ada', email: 'ada@example.com', avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}/) });
      expect(chat.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
      expect(chat.messages[0]).toMatchObject({ user: { id: 'user-7' }, identifier: 'user-7', sources: [] });
      expect(chat.messages[1].text).toContain('10am');
      expect(chat.messages[1].user).toBeNull();
    });

    it('answers a follow-up using the chat history', async () => {
      const r = await project.post(`/chats/${chat.id}/messages`, { text: 'And what about returns?' });
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ role: 'assistant', chat_id: chat.id });
      expect(r.body.data.sources.map((s: any) => s.item_id)).toContain('returns');
      const full = await project.get(`/chats/${chat.id}`);
      expect(full.body.data.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(full.body.data.messages[3].id).toBe(r.body.data.id);
    });

    it('gets one message and 404s messages of other chats', async () => {
      const m = chat.messages[1];
      expect((await project.get(`/chats/${chat.id}/messages/${m.id}`)).body.data).toMatchObject({ id: m.id, text: m.text });
      expect((await project.get(`/chats/${MISSING}/messages/${m.id}`)).status).toBe(404);
      expect((await project.get(`/chats/${chat.id}/messages/${MISSING}`)).status).toBe(404);
    });

    it('keeps the last feedback given, on chats and messages', async () => {
      expect((await project.post(`/chats/${chat.id}/feedback`, { feedback: 'positive' })).body.data.feedback).toBe('positive');
      const again = await project.post(`/chats/${chat.id}/feedback`, { feedback: 'negative' });
      expect(again.status).toBe(201);
      expect(again.body.data).toMatchObject({ id: chat.id, feedback: 'negative' });
      const m = chat.messages[1];
      const mf = await project.post(`/chats/${chat.id}/messages/${m.id}/feedback`, { feedback: 'positive' });
      expect(mf.status).toBe(201);
      expect(mf.body.data).toMatchObject({ id: m.id, feedback: 'positive' });
      expect((await project.get(`/chats/${chat.id}/messages/${m.id}`)).body.data.feedback).toBe('positive');
      expect((await project.post(`/chats/${chat.id}/feedback`, {})).status).toBe(422);
      expect((await project.post(`/chats/${chat.id}/feedback`, { feedback: 'x'.repeat(1001) })).status).toBe(422);
      expect((await project.post(`/chats/${MISSING}/feedback`, { feedback: 'positive' })).status).toBe(404);
    });

    it('refuses follow-ups on the chat of a one-off query with 409, but takes feedback on it', async () => {
      const q = await project.post('/query', { text: 'How long does shipping take?' });
      const r = await project.post(`/chats/${q.body.data.chat_id}/messages`, { text: 'and express?' });
      expect(r.status).toBe(409);
      expect(Object.keys(r.body)).toEqual(['message']);
      expect((await project.post(`/chats/${q.body.data.chat_id}/messages/${q.body.data.id}/feedback`, { feedback: 'negative' })).status).toBe(201);
    });

    it('lists chats (type chat by default), with messages, filtered by type and user', async () => {
      const chats = await project.get('/chats');
      expect(chats.body.data.every((c: any) => c.type === 'chat')).toBe(true);
      expect(chats.body.data[0].messages.length).toBeGreaterThanOrEqual(2);
      const queries = await project.get('/chats?type=query');
      expect(queries.body.data.length).toBeGreaterThanOrEqual(2);
      expect(queries.body.data.every((c: any) => c.type === 'query')).toBe(true);
      const all = await project.get('/chats?type=all');
      expect(all.body.meta.total).toBe(chats.body.meta.total + queries.body.meta.total);
      expect((await project.get('/chats?user=user-7')).body.data.map((c: any) => c.id)).toEqual([chat.id]);
      expect((await project.get('/chats?user=nobody')).body.data).toEqual([]);
      expect((await project.get('/chats?type=bogus')).status).toBe(422);
    });
  });

  it('never lets item content inject markup into text_html', async () => {
    const hostile = await Project.create();
    await hostile.upsert([
      { id: 'evil', data: { title: 'Evil page', text: 'The secret code is <script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) <a href="javascript:alert(4)">x</a> and it works.' } },
    ]);
    const r = await hostile.post('/query', { text: 'What is the secret code?' });
    expect(r.body.data.sources.map((s: any) => s.item_id)).toEqual(['evil']);
    const html = r.body.data.text_html as string;
    // Item markup may appear as escaped text, never as elements, attributes or live links.
    expect(html).not.toMatch(/<script|<img|<[^>]*\son\w+=|<a [^>]*href="javascript:/i);
    expect(html).toContain('&lt;script&gt;');
  });
});
