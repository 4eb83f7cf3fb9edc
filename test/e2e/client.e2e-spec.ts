import { AnswerEvent, AskdataClient, AuthenticationError, ChatMessage, ConflictError, NotFoundError, RateLimitError, ValidationError } from '@askdata/client';
import { createProject, createProjectOn, Project, RunningService, sharedService, startDedicatedGateway } from '../support/harness';

/** The service driven through the client package (packages/client), as an application would use it. */
const FAQ = [
  { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am. On Sundays the shop is closed.' } },
  { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt. Refunds take five business days.' } },
  { id: 'delivery', data: { title: 'Delivery', text: 'Orders are delivered within three days. Delivery is free above 50 euros.' } },
  { id: 'payment', data: { title: 'Payment', text: 'We accept cards and bank transfers. Invoices are due in 14 days.' } },
  { id: 'warranty', data: { title: 'Warranty', text: 'Every lamp has a two year warranty covering defects.' } },
];

/** A client whose fetch records the method, path and status of every exchange. */
function recordingClient(baseUrl: string, apiKey: string, options: { maxRetries?: number } = {}) {
  const exchanges: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    exchanges.push(`${init?.method} ${new URL(input instanceof Request ? input.url : input).pathname} ${response.status}`);
    return response;
  };
  return { client: new AskdataClient({ baseUrl, apiKey, fetch, ...options }), exchanges };
}

/** The events' names in order, runs of deltas as one. */
const shape = (events: Array<AnswerEvent<unknown>>) => events.map((e) => e.event).filter((e, i, all) => e !== 'delta' || all[i - 1] !== 'delta');
const written = (events: Array<AnswerEvent<unknown>>) => events.map((e) => (e.event === 'delta' ? e.data.text : '')).join('');

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('the client package against the service', () => {
  let p: Project;
  let client: AskdataClient;
  let exchanges: string[];
  beforeAll(async () => {
    p = await createProject();
    ({ client, exchanges } = recordingClient(p.baseUrl, p.key));
    const receipt = await client.upserts.create({ items: FAQ, collection: { slug: 'faq', name: 'FAQ' } });
    expect(receipt.result).toBe('Queued');
    const done = await client.upserts.wait(receipt.id, { intervalMs: 200 });
    expect(done).toMatchObject({ id: receipt.id, status: 'completed', items_count: FAQ.length, collection: 'faq' });
  });

  it('iterates every item across pages, in the order of the list', async () => {
    exchanges.length = 0;
    const items = await collect(client.items.iterate({ collection: 'faq', per_page: 2 }));
    expect(items.map((i) => i.item_id)).toEqual((await client.items.list({ collection: 'faq', per_page: 100 })).data.map((i) => i.item_id));
    expect(items.map((i) => i.item_id).sort()).toEqual(FAQ.map((f) => f.id).sort());
    expect(exchanges.filter((e) => e.startsWith('GET /v1/items '))).toHaveLength(4); // three pages, then the whole list
    expect(items[0].collection.slug).toBe('faq');
  });

  it('asks a question', async () => {
    const answer = await client.query({ text: 'When does the shop open on Saturdays?', collections: ['faq'] });
    expect(answer.role).toBe('assistant');
    expect(answer.text).toContain('10am');
    expect(answer.sources[0]).toMatchObject({ index: 1, item_id: 'hours', collection: 'faq' });
  });

  it('streams a question: start, the text, sources, then done, which is the stored message and shaped as the JSON answer', async () => {
    const events = await collect(client.queryStream({ text: 'When does the shop open on Saturdays?' }));
    expect(shape(events)).toEqual(['start', 'delta', 'sources', 'done']);
    const [start] = events;
    const done = events[events.length - 1];
    if (start.event !== 'start' || done.event !== 'done') throw new Error('no start or done');
    expect(done.data.id).toBe(start.data.message);
    expect(written(events)).toBe(done.data.text);
    expect(done.data.text).toContain('10am');
    expect(await client.chats.message(start.data.chat, start.data.message)).toEqual(done.data);
    const json = await client.query({ text: 'When does the shop open on Saturdays?' });
    expect(Object.keys(done.data).sort()).toEqual(Object.keys(json).sort());
    expect({ ...done.data, id: json.id, chat_id: json.chat_id, created_at: json.created_at }).toEqual(json);
  });

  it('streams a new chat and a follow-up in it', async () => {
    const chat = await client.chats.createStream({ text: 'How long do refunds take?' }).final();
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(chat.messages[1].text).toContain('five business days');

    const events = await collect(client.chats.followUpStream(chat.id, { text: 'And how long is the warranty?' }));
    expect(shape(events)).toEqual(['start', 'delta', 'sources', 'done']);
    const reply = (events[events.length - 1] as { data: ChatMessage }).data;
    expect(written(events)).toBe(reply.text);
    const after = await client.chats.get(chat.id);
    expect(after.messages.map((m) => m.text)).toEqual([...chat.messages.map((m) => m.text), 'And how long is the warranty?', reply.text]);
    expect((await collect(client.chats.iterate({ per_page: 1 }))).map((c) => c.id)).toContain(chat.id);
  });

  it('throws typed errors with the contract’s body and status', async () => {
    const invalid = await client.query({ text: '' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ status: 422, errors: { text: [expect.any(String)] } });

    const unknown = '0190f000-0000-7000-8000-000000000000';
    const missing = await client.chats.get(unknown).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, body: { message: expect.any(String) }, requestId: expect.any(String) });
    await expect(client.chats.followUpStream(unknown, { text: 'Hello?' }).final()).rejects.toBeInstanceOf(NotFoundError);

    const query = await client.query({ text: 'Can items be returned?' });
    await expect(client.chats.followUp(query.chat_id, { text: 'And refunds?' })).rejects.toBeInstanceOf(ConflictError);
    await expect(new AskdataClient({ baseUrl: p.baseUrl, apiKey: 'ak_wrong' }).items.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('deletes an item and waits for the delete like an upsert', async () => {
    const receipt = await client.items.deleteByItemId({ item_id: 'payment', collection: 'faq' });
    expect(await client.upserts.wait(receipt.id, { intervalMs: 200 })).toMatchObject({ kind: 'delete', status: 'completed' });
    await expect(collect(client.items.iterate({ item_id: 'payment' }))).resolves.toEqual([]);
  });
});

const LIMIT = 6; // a request every 10 s once the burst is spent

describe(`the client over the rate limit (${LIMIT} a minute, dedicated gateway)`, () => {
  let gw: RunningService | undefined;
  let p: Project;
  beforeAll(async () => {
    gw = await startDedicatedGateway(sharedService(), { RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    p = await createProjectOn(gw);
  }, 240_000);
  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  it('throws RateLimitError with Retry-After without retries, and with them waits Retry-After and gets the answer', async () => {
    for (let i = 0; i < 10 && (await p.get('/items')).status !== 429; i++);
    const once = recordingClient(p.baseUrl, p.key, { maxRetries: 0 });
    const refused = await once.client.items.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfter).toBeGreaterThanOrEqual(1);
    expect(once.exchanges).toEqual(['GET /v1/items 429']);

    const patient = recordingClient(p.baseUrl, p.key);
    const page = await patient.client.items.list();
    expect(page.data).toEqual([]);
    expect(patient.exchanges).toEqual(['GET /v1/items 429', 'GET /v1/items 200']);
  }, 60_000);
});
