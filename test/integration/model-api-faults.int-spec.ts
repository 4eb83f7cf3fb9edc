import { MessagesApiStub } from '../../apps/conversation/src/claude/testing/messages-api.stub';
import { PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';

/**
 * Answers from Claude in distributed mode, with the Messages API played by a local server that fails on cue:
 * overloads (529), server errors (500) and silence are retried, then answered with 503, and a question that got
 * no answer leaves no chat and no message behind.
 */
jest.setTimeout(150000);

const MAX_RETRIES = 2;

interface Reply {
  status: number;
  body: { message?: string; data?: { id: string; messages?: unknown[]; text?: string } };
}

describe('the model API failing', () => {
  let stub: MessagesApiStub;
  let nats: PrivateNats;
  let service: Running;
  let api: Api;

  beforeAll(async () => {
    stub = new MessagesApiStub();
    const [baseUrl, bus] = await Promise.all([stub.start(), PrivateNats.start()]);
    nats = bus;
    service = await startService(
      'distributed',
      {
        ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_TIMEOUT_MS: '1000', ANTHROPIC_MAX_RETRIES: String(MAX_RETRIES),
        ANTHROPIC_MODEL: 'claude-stub', REWRITE_MODEL: 'claude-stub-small', REWRITE_TIMEOUT_MS: '500',
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

  async function send(method: string, path: string, body?: unknown): Promise<Reply> {
    const res = await fetch(`${service.url}/v1${path}`, {
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
});
