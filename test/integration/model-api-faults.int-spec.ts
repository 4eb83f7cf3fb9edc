import { createServer } from 'node:net';
import { MessagesApiStub } from '../stand-ins/messages-api.stub';
import { PrivateNats } from '../../bench/lib/private-infra';
import { adminQuery, Api, Running, startService } from '../../bench/lib/service';

/**
 * Answers from Claude in distributed mode, with the Messages API played by a local server that fails on cue:
 * overloads (529), server errors (500) and silence are retried, then answered with 503, and a question that got
 * no answer leaves no chat and no message behind; nor does one answered too late for its caller, or answered with
 * nothing. Cut-off and refused answers say so, answers and the history sent with follow-ups are bounded.
 */
jest.setTimeout(240000);

const MAX_RETRIES = 2;
const HISTORY_TOKEN_BUDGET = 2000;
const MAX_ANSWER_CHARS = 5000;

type Message = { id: string; role: string; text: string; finish_reason: string | null };

interface Reply {
  status: number;
  body: { message?: string; data?: { id: string; messages?: Message[]; text?: string; finish_reason?: string | null } };
}

describe('the model API failing', () => {
  let stub: MessagesApiStub;
  let nats: PrivateNats;
  let service: Running;
  let api: Api;

  beforeAll(async () => {
    // A context window small enough that a chat resending its whole history would soon pass it.
    stub = new MessagesApiStub({ contextTokens: 4000 });
    const [baseUrl, bus] = await Promise.all([stub.start(), PrivateNats.start()]);
    nats = bus;
    service = await startService(
      'distributed',
      {
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: baseUrl,
        ANTHROPIC_TIMEOUT_MS: '1000',
        ANTHROPIC_MAX_RETRIES: String(MAX_RETRIES),
        ANTHROPIC_MODEL: 'claude-stub',
        REWRITE_MODEL: 'claude-stub-small',
        REWRITE_TIMEOUT_MS: '500',
        ANSWER_TIMEOUT_MS: '8000',
        HISTORY_TOKEN_BUDGET: String(HISTORY_TOKEN_BUDGET),
        MAX_ANSWER_CHARS: String(MAX_ANSWER_CHARS),
      },
      0,
      { natsUrl: nats.url },
    );
    api = await Api.withProject(service);
    await api.upsertAll([
      { id: 'hours', data: { title: 'Opening hours', text: 'The shop opens at nine in the morning and closes at five.' } },
      { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within thirty days with a receipt.' } },
    ]);
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([nats?.destroy(), stub?.stop()]);
  });

  afterEach(() => stub.reset());

  async function send(method: string, path: string, body?: unknown, base = service.url): Promise<Reply> {
    const res = await fetch(`${base}/v1${path}`, {
      method,
      headers: { 'Api-Key': api.key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60000),
    });
    return { status: res.status, body: (await res.json()) as Reply['body'] };
  }

  async function allChats(): Promise<string[]> {
    const res = await send('GET', '/chats?type=all&per_page=100');
    expect(res.status).toBe(200);
    return (res.body as unknown as { data: Array<{ id: string }> }).data.map((c) => c.id);
  }

  /** Runs `fn` and gives back how many requests the Messages API received meanwhile. */
  async function modelRequests<T>(fn: () => Promise<T>): Promise<[T, number]> {
    const before = stub.requests.length;
    const result = await fn();
    return [result, stub.requests.length - before];
  }

  it.each([
    ['overloaded (529)', { kind: 'error', status: 529 }],
    ['failing (500)', { kind: 'error', status: 500 }],
    ['not answering in time', { kind: 'hang' }],
  ] as const)('%s: retried, then 503, and neither a chat nor a query is left behind', async (_name, reply) => {
    stub.otherwise(reply);
    const chats = await allChats();

    const [created, tries] = await modelRequests(() => send('POST', '/chats', { text: 'When does the shop open?' }));
    expect(created.status).toBe(503);
    expect(created.body.message).toEqual(expect.any(String));
    expect(tries).toBe(1 + MAX_RETRIES);

    const [queried, queryTries] = await modelRequests(() => send('POST', '/query', { text: 'Can items be returned?' }));
    expect(queried.status).toBe(503);
    expect(queryTries).toBe(1 + MAX_RETRIES);

    expect(await allChats()).toEqual(chats);
  });

  it('answers when a retry succeeds', async () => {
    stub.enqueue({ kind: 'error', status: 529 }, { kind: 'error', status: 500 }, { kind: 'answer', blocks: [{ text: 'It opens at nine.', cite: [0] }] });
    const chats = await allChats();
    const [created, tries] = await modelRequests(() => send('POST', '/chats', { text: 'When does the shop open?' }));
    expect(created.status).toBe(201);
    expect(created.body.data!.messages).toMatchObject([{ role: 'user' }, { role: 'assistant', text: 'It opens at nine.[1]' }]);
    expect(tries).toBe(3);
    expect(await allChats()).toEqual([created.body.data!.id, ...chats]);
  });

  it('leaves a chat as it was when the answer to a follow-up fails', async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'It opens at nine.', cite: [0] }] });
    const created = await send('POST', '/chats', { text: 'When does the shop open?' });
    expect(created.status).toBe(201);
    const id = created.body.data!.id;
    const before = await send('GET', `/chats/${id}`);

    stub.otherwise({ kind: 'error', status: 500 });
    const followUp = await send('POST', `/chats/${id}/messages`, { text: 'And when does it close?' });
    expect(followUp.status).toBe(503);
    expect(await send('GET', `/chats/${id}`)).toEqual(before);
    expect(before.body.data!.messages).toHaveLength(2);
  });

  async function startChat(): Promise<string> {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'It opens at nine.', cite: [0] }] });
    const created = await send('POST', '/chats', { text: 'When does the shop open?' });
    expect(created.status).toBe(201);
    return created.body.data!.id;
  }

  /** A second gateway that waits 1.5 s for an answer, less than conversation allows. */
  async function impatientGateway(): Promise<string> {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    service.spawnApp('gateway', { PORT: String(port), ANSWER_TIMEOUT_MS: '1500' });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      if (
        await fetch(`${url}/health/live`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return url;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the second gateway did not start');
  }

  it('stores nothing once the caller has been answered 503, whether the answer or the follow-up rewrite is late', async () => {
    const impatient = await impatientGateway();
    const chats = await allChats();
    // Without the deadline: a first attempt that hangs, then an answer a second later, stored after the 503.
    stub.enqueue({ kind: 'hang' }, { kind: 'answer', blocks: [{ text: 'It opens at nine.', cite: [0] }], delayMs: 900 });
    const late = await send('POST', '/chats', { text: 'When does the shop open?' }, impatient);
    expect(late.status).toBe(503);

    const id = await startChat();
    const before = await send('GET', `/chats/${id}`);
    stub.reset().enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'answer', blocks: [{ text: 'It closes at five.', cite: [0] }], delayMs: 500 });
    const followUp = await send('POST', `/chats/${id}/messages`, { text: 'And when does it close?' }, impatient);
    expect(followUp.status).toBe(503);

    await new Promise((r) => setTimeout(r, 4000)); // past every reply the model API was told to give
    expect(await allChats()).toEqual([id, ...chats]);
    expect(await send('GET', `/chats/${id}`)).toEqual(before);
  });

  it('takes an empty reply for a failed answer, and a chat with an empty answer stored still goes on', async () => {
    const chats = await allChats();
    stub.enqueue({ kind: 'answer', blocks: [] });
    expect((await send('POST', '/chats', { text: 'When does the shop open?' })).status).toBe(503);
    stub.enqueue({ kind: 'answer', blocks: [{ text: '   ' }] });
    expect((await send('POST', '/query', { text: 'When does the shop open?' })).status).toBe(503);
    expect(await allChats()).toEqual(chats);

    // An empty answer stored by an earlier version: the model is never sent an empty turn for it.
    const id = await startChat();
    await adminQuery(service.databaseUrl!, `UPDATE conversation.messages SET text = '', text_html = '' WHERE chat_id = '${id}' AND role = 'assistant'`);
    for (const text of ['And when does it close?', 'Can items be returned?']) {
      const before = stub.requests.length;
      stub.enqueue({ kind: 'answer', blocks: [{ text: 'At five.', cite: [0] }] });
      expect((await send('POST', `/chats/${id}/messages`, { text })).status).toBe(201);
      expect(stub.requests.slice(before).flatMap((r) => r.problems)).toEqual([]);
    }
  });

  it('says when an answer was cut off or refused, and bounds what it stores', async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'The shop opens at nine and', cite: [0] }], stop_reason: 'max_tokens' });
    const cut = await send('POST', '/query', { text: 'When does the shop open?' });
    expect(cut.status).toBe(201);
    expect(cut.body.data).toMatchObject({ finish_reason: 'truncated', text: expect.stringMatching(/^The shop opens at nine and ?\[1\][\s\S]*cut off/) });

    stub.enqueue({ kind: 'answer', blocks: [], stop_reason: 'refusal' });
    const refused = await send('POST', '/chats', { text: 'When does the shop open?' });
    expect(refused.status).toBe(201);
    expect(refused.body.data!.messages!.map((m) => m.finish_reason)).toEqual([null, 'refused']);

    const huge = Array.from({ length: 5000 }, (_, i) => `Line ${i}: the shop opens at nine.`).join('\n');
    stub.enqueue({ kind: 'answer', blocks: [{ text: huge, cite: [0] }] });
    const long = await send('POST', '/query', { text: 'When does the shop open?' });
    expect(long.status).toBe(201);
    expect(long.body.data!.text!.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(long.body.data).toMatchObject({ finish_reason: 'truncated', text: expect.stringMatching(/cut off/) });

    stub.enqueue({ kind: 'answer', blocks: [{ text: 'It opens at nine.', cite: [0] }] });
    const whole = await send('POST', '/query', { text: 'When does the shop open?' });
    expect(whole.body.data!.finish_reason).toBe('complete');
    // Each search result is titled as its item is.
    const results = (stub.requests[stub.requests.length - 1].body.messages as Array<{ content: Array<{ type: string; title?: string }> }>)[0].content;
    expect(results.filter((b) => b.type === 'search_result').map((b) => b.title)).toEqual(expect.arrayContaining(['Opening hours']));
  });

  it('keeps a chat of 50 follow-ups going, each request to the model within the history budget', async () => {
    const id = await startChat();
    const answer = 'The shop opens at nine in the morning and closes at five in the afternoon. '.repeat(15);
    stub.otherwise({ kind: 'answer', blocks: [{ text: answer, cite: [0] }] });
    const first = stub.requests.length;
    for (let i = 0; i < 50; i++) {
      const r = await send('POST', `/chats/${id}/messages`, { text: `Question number ${i}: when does the shop open on day ${i}?` });
      expect(r.status).toBe(201);
    }
    const answers = stub.requests.slice(first).filter((r) => r.body.model === 'claude-stub');
    expect(answers).toHaveLength(50);
    for (const r of answers) {
      expect(r.problems).toEqual([]);
      const history = (r.body.messages as Array<{ content: unknown }>).slice(0, -1);
      const bytes = Buffer.byteLength(history.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join(''));
      expect(bytes / 3).toBeLessThanOrEqual(HISTORY_TOKEN_BUDGET * 1.1); // JSON quoting of the last turn adds a little
    }
    const sizes = answers.map((r) => r.bytes);
    expect(Math.max(...sizes.slice(25))).toBeLessThanOrEqual(Math.max(...sizes.slice(0, 25)) * 1.05);
  });
});
