import { createHash } from 'node:crypto';
import { Chat, ChatMessage, citations, createProject, MALFORMED_IDS, MISSING_ID, Page, Project } from '../support/harness';
import { assistantMessageSpec, chatSpec, expectMessageOnly, expectShape, expectValidation, messageSpec, object, pageSpec, userSpec } from '../support/shapes';

const FAQ = [
  { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am.' } },
  { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt. Refunds take five business days.' } },
  { id: 'shipping', data: { title: 'Shipping', text: 'Orders ship within two days. Express delivery costs 12 euros.' } },
];

const ADA = { id: 'user-7', name: 'Ada Lovelace', email: 'ada@example.com' };

function gravatarHashes(email: string): string[] {
  const e = email.trim().toLowerCase();
  return [createHash('md5').update(e).digest('hex'), createHash('sha256').update(e).digest('hex')];
}

function expectCitationsInSources(m: ChatMessage): void {
  const indexes = (m.sources ?? []).map((s) => s.index);
  for (const n of citations(m.text)) expect(indexes).toContain(n);
}

describe('chats', () => {
  let p: Project;
  let chat: Chat;
  const question = 'When does the shop open on Saturdays?';

  beforeAll(async () => {
    p = await createProject();
    await p.upsertAndWait(FAQ, { slug: 'faq' });
    const r = await p.post<{ data: Chat }>('/chats', { text: question, identifier: ADA });
    if (r.status !== 201) throw new Error(`POST /v1/chats answered ${r.status}: ${r.text}`);
    chat = r.body.data;
  });

  describe('POST /v1/chats', () => {
    it('answers 201 with the chat: every field, the question then the answer', () => {
      expectShape(chat, chatSpec, 'chat');
      expect(chat).toMatchObject({ name: question, tenant: null, type: 'chat' });
      expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      const [asked, answer] = chat.messages;
      expect(asked).toMatchObject({ chat_id: chat.id, role: 'user', text: question, identifier: 'user-7', feedback: null });
      expectShape(answer, assistantMessageSpec, 'answer');
      expect(answer).toMatchObject({ chat_id: chat.id, role: 'assistant', user: null, feedback: null });
      expect(answer.text).toContain('10am');
      expect(answer.sources?.map((s) => s.item_id)).toContain('hours');
      expectCitationsInSources(answer);
      expect(asked.created_at <= answer.created_at).toBe(true);
    });

    it('makes the identifier the user of the chat and of the question, with a Gravatar avatar', () => {
      expectShape(chat.user, userSpec, 'chat.user');
      expect(chat.user).toMatchObject({ id: 'user-7', name: 'Ada Lovelace', email: 'ada@example.com' });
      const avatar = chat.user?.avatar ?? '';
      expect(avatar).toMatch(/^https:\/\/([a-z]+\.)?gravatar\.com\/avatar\/[0-9a-f]{32,64}/);
      expect(gravatarHashes(ADA.email).some((h) => avatar.includes(h))).toBe(true);
      expect(chat.messages[0].user).toEqual(chat.user);
    });

    it('without an email the avatar is null; without an identifier there is no user', async () => {
      const noEmail = (await p.post<{ data: Chat }>('/chats', { text: 'Shipping time?', identifier: { id: 'user-8', name: 'Bob' } })).body.data;
      expect(noEmail.user).toMatchObject({ id: 'user-8', name: 'Bob', avatar: null });
      const anonymous = await p.post<{ data: Chat }>('/chats', { text: 'Shipping cost?' });
      expect(anonymous.status).toBe(201);
      expectShape(anonymous.body.data, chatSpec, 'chat');
      expect(anonymous.body.data.user).toBeNull();
      expect(anonymous.body.data.messages[0]).toMatchObject({ user: null, identifier: null });
    });

    it('names the chat after the first question, cut at 80 characters on a word boundary', async () => {
      const long = 'Could you please tell me when the shop opens on Saturdays and whether that is earlier than weekdays?';
      expect(long.length).toBeGreaterThan(80);
      const c = (await p.post<{ data: Chat }>('/chats', { text: long })).body.data;
      const name = c.name.replace(/(…|\.\.\.)$/, '').trimEnd();
      expect(c.name.length).toBeLessThanOrEqual(80);
      expect(long.startsWith(name)).toBe(true);
      expect(long[name.length]).toMatch(/[\s,.;:!?]/); // the cut falls between words
      // The longest such prefix: at most one word shorter than 80 characters.
      expect(name.length).toBeGreaterThan(80 - 'earlier '.length - 4);
      expect(c.messages[0].text).toBe(long);

      const oneWord = 'x'.repeat(120);
      const w = (await p.post<{ data: Chat }>('/chats', { text: oneWord })).body.data;
      expect(w.name.length).toBeLessThanOrEqual(80);
      expect(w.name.length).toBeGreaterThan(0);
    });
  });

  describe('GET /v1/chats/{id} and messages', () => {
    it('gives the chat with its messages', async () => {
      const r = await p.get<{ data: Chat }>(`/chats/${chat.id}`);
      expect(r.status).toBe(200);
      expectShape(r.body, { data: object(chatSpec) });
      expect(r.body.data).toMatchObject({ id: chat.id, name: chat.name, user: chat.user, created_at: chat.created_at });
      expect(r.body.data.messages.slice(0, 2)).toEqual(chat.messages);
    });

    it('gives one message; a message of another chat, unknown or malformed ids are 404', async () => {
      for (const m of chat.messages) {
        const r = await p.get(`/chats/${chat.id}/messages/${m.id}`);
        expect(r.status).toBe(200);
        expectShape(r.body, { data: object(messageSpec) });
        expect(r.body.data).toEqual(m);
      }
      const other = (await p.post<{ data: Chat }>('/chats', { text: 'Returns?' })).body.data;
      const paths = [
        `/chats/${other.id}/messages/${chat.messages[1].id}`,
        `/chats/${chat.id}/messages/${MISSING_ID}`,
        `/chats/${MISSING_ID}/messages/${chat.messages[1].id}`,
        ...MALFORMED_IDS.map((id) => `/chats/${chat.id}/messages/${encodeURIComponent(id)}`),
        ...MALFORMED_IDS.map((id) => `/chats/${encodeURIComponent(id)}`),
        `/chats/${MISSING_ID}`,
        `/chats/${chat.messages[1].id}`,
      ];
      for (const path of paths) {
        const r = await p.get(path);
        expect({ path, status: r.status }).toEqual({ path, status: 404 });
        expectMessageOnly(r.body);
      }
    });
  });

  describe('follow-ups: POST /v1/chats/{id}/messages', () => {
    it('answers 201 with the assistant message, which becomes the latest message of the chat', async () => {
      const c = (await p.post<{ data: Chat }>('/chats', { text: 'When does the shop open on weekdays?', identifier: ADA })).body.data;
      const r = await p.post<{ data: ChatMessage }>(`/chats/${c.id}/messages`, { text: 'And how long do refunds take?' });
      expect(r.status).toBe(201);
      expectShape(r.body.data, assistantMessageSpec, 'message');
      expect(r.body.data).toMatchObject({ chat_id: c.id, role: 'assistant', user: null });
      expect(r.body.data.text).toContain('five business days');
      expect(r.body.data.sources?.map((s) => s.item_id)).toContain('returns');
      expectCitationsInSources(r.body.data);

      const full = (await p.get<{ data: Chat }>(`/chats/${c.id}`)).body.data;
      expect(full.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      // The follow-up is the chat user's question as much as the first one: same identifier, same user.
      expect(full.messages[2]).toMatchObject({ text: 'And how long do refunds take?', chat_id: c.id, identifier: 'user-7', user: full.messages[0].user });
      expect(full.messages[3]).toEqual(r.body.data);
      expect(full.messages.map((m) => m.created_at)).toEqual(full.messages.map((m) => m.created_at).sort());
    });

    it('uses the chat history to understand the follow-up', async () => {
      const c = (await p.post<{ data: Chat }>('/chats', { text: 'How much does express delivery cost?' })).body.data;
      expect(c.messages[1].text).toContain('12 euros');
      const r = await p.post<{ data: ChatMessage }>(`/chats/${c.id}/messages`, { text: 'And how quickly do orders ship?' });
      expect(r.body.data.text).toContain('two days');
      const vague = await p.post<{ data: ChatMessage }>(`/chats/${c.id}/messages`, { text: 'Tell me more about that.' });
      expect(vague.status).toBe(201);
      expect(vague.body.data.sources?.map((s) => s.item_id)).toContain('shipping');
      expectCitationsInSources(vague.body.data);
    });

    it('validates the follow-up text with 422', async () => {
      for (const [body, paths] of [
        [{}, ['text']],
        [{ text: '' }, ['text']],
        [{ text: 'x'.repeat(4001) }, ['text']],
        [{ text: 5 }, ['text']],
      ] as const) {
        expectValidation(await p.post(`/chats/${chat.id}/messages`, body), [...paths]);
      }
    });

    it('404s follow-ups on unknown and malformed chats', async () => {
      for (const id of [MISSING_ID, ...MALFORMED_IDS]) {
        const r = await p.post(`/chats/${encodeURIComponent(id)}/messages`, { text: 'and then?' });
        expect({ id, status: r.status }).toEqual({ id, status: 404 });
        expectMessageOnly(r.body);
      }
    });

    it('refuses a follow-up on the chat of a one-off query with 409 {message}, leaving it unchanged', async () => {
      const q = (await p.post<{ data: ChatMessage }>('/query', { text: 'How long does shipping take?' })).body.data;
      const r = await p.post(`/chats/${q.chat_id}/messages`, { text: 'and express?' });
      expect(r.status).toBe(409);
      expectMessageOnly(r.body);
      const after = (await p.get<{ data: Chat }>(`/chats/${q.chat_id}`)).body.data;
      expect(after.messages).toHaveLength(2);
    });
  });

  describe('feedback', () => {
    it('on a chat: 201 with the chat; the last feedback replaces the previous', async () => {
      const c = (await p.post<{ data: Chat }>('/chats', { text: 'Refund time?' })).body.data;
      const first = await p.post<{ data: Chat }>(`/chats/${c.id}/feedback`, { feedback: 'positive' });
      expect(first.status).toBe(201);
      expectShape(first.body, { data: object(chatSpec) });
      expect(first.body.data).toMatchObject({ id: c.id, feedback: 'positive' });
      const second = await p.post<{ data: Chat }>(`/chats/${c.id}/feedback`, { feedback: 'negative' });
      expect(second.status).toBe(201);
      expect(second.body.data).toMatchObject({ id: c.id, feedback: 'negative' });
      expect((await p.get<{ data: Chat }>(`/chats/${c.id}`)).body.data.feedback).toBe('negative');
      // Stored as given: whitespace around words is kept.
      const spaced = '  slow,\n but right ';
      expect((await p.post<{ data: Chat }>(`/chats/${c.id}/feedback`, { feedback: spaced })).body.data.feedback).toBe(spaced);
      expect((await p.get<{ data: Chat }>(`/chats/${c.id}`)).body.data.feedback).toBe(spaced);
    });

    it('on a message: 201 with the message; the last feedback replaces the previous', async () => {
      const c = (await p.post<{ data: Chat }>('/chats', { text: 'Express cost?' })).body.data;
      const answer = c.messages[1];
      const first = await p.post<{ data: ChatMessage }>(`/chats/${c.id}/messages/${answer.id}/feedback`, { feedback: 'positive' });
      expect(first.status).toBe(201);
      expectShape(first.body, { data: object(messageSpec) });
      expect(first.body.data).toMatchObject({ id: answer.id, chat_id: c.id, feedback: 'positive', text: answer.text });
      const text = 'The answer missed the Saturday hours. '.repeat(30).slice(0, 1000);
      const second = await p.post<{ data: ChatMessage }>(`/chats/${c.id}/messages/${answer.id}/feedback`, { feedback: text });
      expect(second.status).toBe(201);
      expect(second.body.data.feedback).toBe(text);
      expect((await p.get<{ data: ChatMessage }>(`/chats/${c.id}/messages/${answer.id}`)).body.data.feedback).toBe(text);
      // 1000 characters though 2000 UTF-16 units.
      const emoji = '\u{1F44D}'.repeat(1000);
      expect((await p.post<{ data: ChatMessage }>(`/chats/${c.id}/messages/${answer.id}/feedback`, { feedback: emoji })).body.data.feedback).toBe(emoji);
      await p.post(`/chats/${c.id}/messages/${answer.id}/feedback`, { feedback: text });
      const chatNow = (await p.get<{ data: Chat }>(`/chats/${c.id}`)).body.data;
      expect(chatNow.messages.find((m) => m.id === answer.id)?.feedback).toBe(text);
      expect(chatNow.messages.find((m) => m.id === c.messages[0].id)?.feedback).toBeNull();
    });

    it('on the message of a one-off query', async () => {
      const q = (await p.post<{ data: ChatMessage }>('/query', { text: 'Refunds?' })).body.data;
      const r = await p.post<{ data: ChatMessage }>(`/chats/${q.chat_id}/messages/${q.id}/feedback`, { feedback: 'negative' });
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ id: q.id, feedback: 'negative' });
      expect((await p.post(`/chats/${q.chat_id}/feedback`, { feedback: 'positive' })).status).toBe(201);
    });

    it.each<[string, unknown]>([
      ['missing', undefined],
      ['empty', ''],
      ['over 1000 characters', 'x'.repeat(1001)],
      ['not a string', 5],
      ['only whitespace', ' \t\n\u00a0'],
    ])('feedback %s is 422 on both routes', async (_name, feedback) => {
      const body = feedback === undefined ? {} : { feedback };
      expectValidation(await p.post(`/chats/${chat.id}/feedback`, body), ['feedback']);
      expectValidation(await p.post(`/chats/${chat.id}/messages/${chat.messages[1].id}/feedback`, body), ['feedback']);
    });

    it('404s feedback on unknown chats and messages, and on a message through another chat', async () => {
      const other = (await p.post<{ data: Chat }>('/chats', { text: 'Hours?' })).body.data;
      const paths = [
        `/chats/${MISSING_ID}/feedback`,
        `/chats/not-an-id/feedback`,
        `/chats/${chat.id}/messages/${MISSING_ID}/feedback`,
        `/chats/${chat.id}/messages/not-an-id/feedback`,
        `/chats/${other.id}/messages/${chat.messages[1].id}/feedback`,
        `/chats/${MISSING_ID}/messages/${chat.messages[1].id}/feedback`,
      ];
      for (const path of paths) {
        const r = await p.post(path, { feedback: 'positive' });
        expect({ path, status: r.status }).toEqual({ path, status: 404 });
        expectMessageOnly(r.body);
      }
      expect((await p.get<{ data: ChatMessage }>(`/chats/${chat.id}/messages/${chat.messages[1].id}`)).body.data.feedback).toBeNull();
    });
  });

  describe('GET /v1/chats', () => {
    let l: Project;
    const made: Record<string, string> = {};
    beforeAll(async () => {
      l = await createProject();
      await l.upsertAndWait(FAQ);
      made.c1 = (await l.post<{ data: Chat }>('/chats', { text: 'Hours on Saturday?', identifier: { id: 'alice' } })).body.data.id;
      made.q1 = (await l.post<{ data: ChatMessage }>('/query', { text: 'Refund time?', identifier: { id: 'alice' } })).body.data.chat_id;
      made.c2 = (await l.post<{ data: Chat }>('/chats', { text: 'Shipping cost?', identifier: { id: 'bob' }, tenant: 3 })).body.data.id;
      made.q2 = (await l.post<{ data: ChatMessage }>('/query', { text: 'Express?' })).body.data.chat_id;
    });

    const ids = (page: Page<Chat>) => page.data.map((c) => c.id);

    it('lists only chats of type "chat" by default, newest first, each with its messages', async () => {
      const r = await l.get<Page<Chat>>('/chats');
      expect(r.status).toBe(200);
      expectShape(r.body, pageSpec(object(chatSpec)));
      expect(ids(r.body)).toEqual([made.c2, made.c1]);
      expect(r.body.data.every((c) => c.type === 'chat')).toBe(true);
      for (const c of r.body.data) expect(c.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    });

    it('?type=query lists the one-off questions, ?type=all both', async () => {
      const q = (await l.get<Page<Chat>>('/chats?type=query')).body;
      expect(ids(q)).toEqual([made.q2, made.q1]);
      expect(q.data.every((c) => c.type === 'query' && c.messages.length === 2)).toBe(true);
      expect(ids((await l.get<Page<Chat>>('/chats?type=all')).body)).toEqual([made.q2, made.c2, made.q1, made.c1]);
      expect(ids((await l.get<Page<Chat>>('/chats?type=chat')).body)).toEqual([made.c2, made.c1]);
      expectValidation(await l.get('/chats?type=everything'), ['type']);
    });

    it('filters by user (identifier id) and tenant', async () => {
      expect(ids((await l.get<Page<Chat>>('/chats?user=alice')).body)).toEqual([made.c1]);
      expect(ids((await l.get<Page<Chat>>('/chats?user=alice&type=all')).body)).toEqual([made.q1, made.c1]);
      expect(ids((await l.get<Page<Chat>>('/chats?user=nobody')).body)).toEqual([]);
      expect(ids((await l.get<Page<Chat>>('/chats?tenant=3')).body)).toEqual([made.c2]);
      expect((await l.get<{ data: Chat }>(`/chats/${made.c2}`)).body.data.tenant).toBe(3);
      expectValidation(await l.get('/chats?tenant=x'), ['tenant']);
    });
  });
});
