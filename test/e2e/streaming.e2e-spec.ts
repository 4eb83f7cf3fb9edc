import { ChatMessage, createProject, Project } from '../support/harness';
import { postStream, SseEvent } from '../support/sse';

const FAQ = [
  { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am. On Sundays the shop is closed.' } },
  { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt. Refunds take five business days.' } },
];

/** The events' names in order, runs of deltas as one. */
const shape = (events: SseEvent[]) => events.map((e) => e.event).filter((e, i, all) => e !== 'delta' || all[i - 1] !== 'delta');
const written = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text as string)
    .join('');

describe('streamed answers', () => {
  let p: Project;
  const url = (path: string) => `${p.baseUrl}/v1${path}`;
  beforeAll(async () => {
    p = await createProject();
    await p.upsertAndWait(FAQ, { slug: 'faq' });
  });

  it('streams a query with Accept: text/event-stream: start, the text, sources, then the stored message; what was streamed is what is stored', async () => {
    const r = await postStream(url('/query'), p.key, { text: 'When does the shop open on Saturdays?' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(shape(r.events)).toEqual(['start', 'delta', 'sources', 'done']);
    const [start] = r.events;
    const done = r.events[r.events.length - 1].data as ChatMessage & { chat_id?: string };
    const sources = r.events.find((e) => e.event === 'sources')!.data.sources;
    expect(done.id).toBe(start.data.message);
    expect(done.text).toContain('10am');
    expect(written(r.events)).toBe(done.text);
    expect(done.sources).toEqual(sources);
    const stored = await p.get<{ data: ChatMessage }>(`/chats/${start.data.chat}/messages/${start.data.message}`);
    expect(stored.status).toBe(200);
    expect(stored.body.data).toEqual(done);
  });

  it('streams a new chat and a follow-up with "stream": true; done carries the resource the JSON answer would', async () => {
    const chat = await postStream(url('/chats'), p.key, { text: 'How long do refunds take?', stream: true }, { Accept: 'application/json' });
    expect(chat.status).toBe(200);
    expect(shape(chat.events)).toEqual(['start', 'delta', 'sources', 'done']);
    const created = chat.events[chat.events.length - 1].data;
    expect(created.id).toBe(chat.events[0].data.chat);
    expect(created.messages.map((m: ChatMessage) => m.role)).toEqual(['user', 'assistant']);
    expect(written(chat.events)).toBe(created.messages[1].text);
    expect((await p.get(`/chats/${created.id}`)).body.data).toEqual(created);

    const follow = await postStream(url(`/chats/${created.id}/messages`), p.key, { text: 'And when is the shop closed?' });
    expect(shape(follow.events)).toEqual(['start', 'delta', 'sources', 'done']);
    const reply = follow.events[follow.events.length - 1].data;
    expect(written(follow.events)).toBe(reply.text);
    const after = await p.get(`/chats/${created.id}`);
    expect(after.body.data.messages.map((m: ChatMessage) => m.text)).toEqual([...created.messages.map((m: ChatMessage) => m.text), 'And when is the shop closed?', reply.text]);
  });

  it('answers as JSON without Accept: text/event-stream or "stream": true, and with "stream": false', async () => {
    const r = await postStream(url('/query'), p.key, { text: 'When does the shop open on Saturdays?', stream: false });
    expect(r.status).toBe(201);
    expect(r.body.data.text).toContain('10am');
  });

  it('fails before the stream starts as an ordinary error answer', async () => {
    const chatsBefore = (await p.get<{ meta: { total: number } }>('/chats?type=all')).body.meta.total;
    const missing = await postStream(url('/chats/0190f000-0000-7000-8000-000000000000/messages'), p.key, { text: 'Hello?' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: expect.any(String) });
    const bad = await postStream(url('/query'), p.key, { text: 'Hello?', stream: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('stream');
    const search = await postStream(url('/search'), p.key, { text: 'Hello?', stream: true });
    expect(search.status).toBe(422);
    expect(search.body.errors.stream).toEqual(['The stream field is not taken here: a search answers at once.']);
    const keyed = await postStream(url('/query'), p.key, { text: 'Hello?' }, { 'Idempotency-Key': 'stream-1' });
    expect(keyed.status).toBe(422);
    expect(keyed.body.errors).toHaveProperty(['Idempotency-Key']);
    // Collections and filter are checked where the question is answered: still before the stream starts.
    const unknown = await postStream(url('/chats'), p.key, { text: 'Hello?', collections: ['faq', 'no-such-collection'] });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['collections.1']);
    for (const route of ['/chats', '/query']) {
      const none = await postStream(url(route), p.key, { text: 'Hello?', collections: [] });
      expect({ route, status: none.status, fields: Object.keys(none.body.errors ?? {}) }).toEqual({ route, status: 422, fields: ['collections'] });
    }
    const filtered = await postStream(url('/query'), p.key, { text: 'Hello?', filter: { no_such_field: 'x' } });
    expect(filtered.status).toBe(422);
    expect(Object.keys(filtered.body.errors)).toEqual(['filter.no_such_field']);
    expect((await p.get<{ meta: { total: number } }>('/chats?type=all')).body.meta.total).toBe(chatsBefore);
  });

  it('is in the OpenAPI document: a 200 text/event-stream answer and the stream field on the three question routes', async () => {
    const doc = (await fetch(`${p.baseUrl}/v1/openapi.json`).then((r) => r.json())) as { paths: Record<string, Record<string, any>> };
    for (const path of ['/v1/query', '/v1/chats', '/v1/chats/{chat}/messages']) {
      const op = doc.paths[path].post;
      expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
      expect(Object.keys(op.responses['200'].content['text/event-stream'].schema['x-events'])).toEqual(['start', 'delta', 'sources', 'done', 'error']);
      expect(op.responses['201'].content['application/json']).toBeDefined();
    }
    expect(doc.paths['/v1/search'].post.responses['200'].content['text/event-stream']).toBeUndefined();
  });

  it('streams the plain answer when the data holds nothing for the question', async () => {
    const empty = await createProject();
    const r = await postStream(`${empty.baseUrl}/v1/query`, empty.key, { text: 'What is the vault code?' });
    expect(shape(r.events)).toEqual(['start', 'delta', 'sources', 'done']);
    expect(written(r.events)).toBe(r.events[r.events.length - 1].data.text);
    expect(r.events.find((e) => e.event === 'sources')!.data.sources).toEqual([]);
  });
});
