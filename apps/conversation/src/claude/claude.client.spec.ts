import { ErrorCode, RetrievedChunk } from '@askdata/contracts';
import { runWithRequestContext, ServiceError } from '@askdata/common';
import { ClaudeClient, ClaudeSettings, REFUSED } from './claude.client';
import { MessagesApiStub, Reply, stubSettings } from '../../../../test/stand-ins/messages-api.stub';

function chunk(n: number, text: string): RetrievedChunk {
  return {
    id: `0190f000-0000-7000-8000-00000000000${n}`,
    item_id: `item-${n}`,
    collection: 'docs',
    tenant: null,
    url: n === 1 ? 'https://example.com/1' : null,
    metadata: {},
    score: 1,
    snippet: text.slice(0, 40),
    text,
    chunk: 0,
  };
}

describe('ClaudeClient against a local Messages API', () => {
  let stub: MessagesApiStub;
  let settings: ClaudeSettings;

  beforeEach(async () => {
    stub = new MessagesApiStub();
    settings = stubSettings(await stub.start());
  });
  afterEach(() => stub.stop());

  it('sends chunks as search_result blocks with citations, the system prompt and the history in order, the history marked for caching', async () => {
    stub.enqueue({
      kind: 'answer',
      blocks: [
        { text: 'We open at 9am.', cite: [1] },
        { text: ' Closed on Sundays.', cite: [0, 1] },
      ],
    });
    const answer = await new ClaudeClient(settings).answer({
      question: 'When do you open?',
      history: [
        { role: 'user', text: 'Hi' },
        { role: 'assistant', text: 'Hello!' },
      ],
      chunks: [chunk(1, 'Closed on Sundays.'), chunk(2, 'Opening hours: 9am to 5pm.')],
      instructions: 'Be brief.',
      titles: { [chunk(1, '').id]: 'Sunday closing' },
    });
    expect(answer.text).toBe('We open at 9am.[2] Closed on Sundays.[1][2]');
    expect(answer.finish).toBe('complete');
    expect(answer.usage).toEqual({ input: expect.any(Number), output: expect.any(Number), cacheRead: 0, cacheWrite: 0 });

    const [req] = stub.requests;
    expect(req.problems).toEqual([]);
    expect(req.body).toMatchObject({ model: 'claude-test', max_tokens: 300 });
    const system = req.body.system as Array<{ text: string; cache_control?: unknown }>;
    expect(system[0].text).toContain('Be brief.');
    const messages = req.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0].content).toBe('Hi');
    expect(messages[1].content).toEqual([{ type: 'text', text: 'Hello!', cache_control: { type: 'ephemeral' } }]);
    const last = messages[2].content as Array<Record<string, unknown>>;
    expect(last.map((b) => b.type)).toEqual(['search_result', 'search_result', 'text']);
    expect(last[0]).toMatchObject({
      source: 'https://example.com/1',
      title: 'Sunday closing',
      citations: { enabled: true },
      content: [{ type: 'text', text: 'Closed on Sundays.' }],
    });
    expect(last[1]).toMatchObject({ title: 'item-2' }); // no title of its own: its id
    expect(last[2]).toEqual({ type: 'text', text: 'When do you open?' });
  });

  it("sends a record's `Label: value` lines as they are, and asks for answers from its fields", async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'Warranty: 2 years.', cite: [0] }] });
    const record = 'Orla desk lamp\nBrand: Lumo\nWarranty: 2 years\nSpecs > Weight: 1.2 kg';
    const answer = await new ClaudeClient(settings).answer({
      question: 'What warranty does the Orla desk lamp have?',
      history: [],
      chunks: [chunk(1, record)],
      instructions: null,
    });
    expect(answer.text).toBe('Warranty: 2 years.[1]');
    const [req] = stub.requests;
    expect(req.problems).toEqual([]);
    const last = (req.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0].content;
    expect(last[0]).toMatchObject({ type: 'search_result', content: [{ type: 'text', text: record }] });
    const system = req.body.system as Array<{ text: string }>;
    expect(system[0].text).toContain('`Label: value` line per field');
  });

  it('retries overloads and rate limits, then answers', async () => {
    stub.enqueue({ kind: 'error', status: 529 }, { kind: 'error', status: 429 }, { kind: 'answer', blocks: [{ text: 'Fine.' }] });
    const answer = await new ClaudeClient(settings).answer({ question: 'q', history: [], chunks: [chunk(1, 'x')], instructions: null });
    expect(answer.text).toBe('Fine.');
    expect(stub.requests).toHaveLength(3);
  });

  it('gives up after the configured retries with UNAVAILABLE', async () => {
    stub.otherwise({ kind: 'error', status: 500 });
    const failure = new ClaudeClient(settings).answer({ question: 'q', history: [], chunks: [chunk(1, 'x')], instructions: null });
    await expect(failure).rejects.toBeInstanceOf(ServiceError);
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(stub.requests).toHaveLength(3);
  });

  it('treats a model that does not answer in time as UNAVAILABLE', async () => {
    stub.otherwise({ kind: 'hang' });
    const client = new ClaudeClient({ ...settings, timeoutMs: 200, maxRetries: 1 });
    await expect(client.answer({ question: 'q', history: [], chunks: [], instructions: null })).rejects.toMatchObject({
      code: ErrorCode.Unavailable,
    });
    expect(stub.requests).toHaveLength(2);
  });

  it('rewrites a follow-up with the small model, and falls back to the question when that fails', async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'What are the opening hours of the second shop?' }] }).otherwise({ kind: 'error', status: 500 });
    const client = new ClaudeClient({ ...settings, maxRetries: 0 });
    const history = [
      { role: 'user' as const, text: 'List the shops.' },
      { role: 'assistant' as const, text: 'North and South.' },
    ];
    expect(await client.rewrite('When does the second open?', history)).toBe('What are the opening hours of the second shop?');
    expect(stub.requests[0].body.model).toBe('claude-small');
    expect(await client.rewrite('And on Sundays?', history)).toBe('And on Sundays?');
    expect(await client.rewrite('No history here', [])).toBe('No history here');
  });

  it('is reachable while the Messages API answers for its model, and says why not once it is gone', async () => {
    const client = new ClaudeClient(settings);
    await expect(client.reachable()).resolves.toBeUndefined();
    expect(stub.modelLookups).toEqual([settings.model]);
    await stub.stop();
    await expect(client.reachable()).rejects.toThrow(/model API is unreachable/);
  });
});

describe('ClaudeClient against a Messages API that misbehaves', () => {
  let stub: MessagesApiStub;
  let settings: ClaudeSettings;
  const ask = (client: ClaudeClient, history: Array<{ role: 'user' | 'assistant'; text: string }> = []) =>
    client.answer({ question: 'When do you open?', history, chunks: [chunk(1, 'Opening hours: 9am to 5pm.')], instructions: null });

  beforeEach(async () => {
    stub = new MessagesApiStub();
    settings = stubSettings(await stub.start(), { maxRetries: 0 });
  });
  afterEach(() => stub.stop());

  it.each<[string, Reply]>([
    ['no content', { kind: 'answer', blocks: [] }],
    ['only whitespace', { kind: 'answer', blocks: [{ text: '  \n ' }] }],
    ['a body that is not JSON', { kind: 'malformed' }],
  ])('fails with UNAVAILABLE on a reply of %s, rather than giving back an empty answer', async (_name, reply) => {
    stub.enqueue(reply);
    await expect(ask(new ClaudeClient(settings))).rejects.toMatchObject({ code: ErrorCode.Unavailable });
  });

  it('says how an answer ended: cut off at max_tokens, refused with or without words of its own', async () => {
    const client = new ClaudeClient(settings);
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'We open at 9am and', cite: [0] }], stop_reason: 'max_tokens' });
    expect(await ask(client)).toMatchObject({ text: 'We open at 9am and[1]', finish: 'truncated' });
    stub.enqueue({ kind: 'answer', blocks: [], stop_reason: 'refusal' });
    expect(await ask(client)).toMatchObject({ text: REFUSED, finish: 'refused' });
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'I cannot help with that.' }], stop_reason: 'refusal' });
    expect(await ask(client)).toMatchObject({ text: 'I cannot help with that.', finish: 'refused' });
  });

  it('keeps a bracketed number the model typed as text, not as a citation', async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'See clause [3] of the terms.' }, { text: ' We open at 9am.', cite: [0] }] });
    expect((await ask(new ClaudeClient(settings))).text).toBe('See clause \\[3\\] of the terms. We open at 9am.[1]');
  });

  it('reports a request the API rejects for good as a configuration problem, not as an outage', async () => {
    stub.otherwise({ kind: 'error', status: 400, message: 'messages.1: all messages must have non-empty content' });
    const failure = ask(new ClaudeClient({ ...settings, maxRetries: 2 }));
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.Unavailable, message: expect.stringMatching(/configuration problem/) });
    await expect(failure).rejects.not.toMatchObject({ message: expect.stringMatching(/try again/i) });
    expect(stub.requests).toHaveLength(1);
  });

  it('names an unknown or retired model, in answers and in readiness', async () => {
    stub.serveOnly('claude-current');
    const client = new ClaudeClient({ ...settings, model: 'claude-sonnet-4-20250514' });
    await expect(ask(client)).rejects.toMatchObject({ code: ErrorCode.Unavailable, message: expect.stringMatching(/claude-sonnet-4-20250514 is unknown or retired/) });
    await expect(client.reachable()).rejects.toThrow(/does not serve claude-sonnet-4-20250514 \(unknown or retired\)/);
    await expect(new ClaudeClient({ ...settings, model: 'claude-current' }).reachable()).resolves.toBeUndefined();
  });

  it('gives up at the deadline of the bus request, retries included, and asks nothing once it has passed', async () => {
    stub.otherwise({ kind: 'answer', blocks: [{ text: 'Too late.' }], delayMs: 3000 });
    const client = new ClaudeClient({ ...settings, timeoutMs: 10000, maxRetries: 3 });
    const late = runWithRequestContext({ requestId: 'r1', deadline: Date.now() + 300 }, () => ask(client));
    await expect(late).rejects.toMatchObject({ code: ErrorCode.Unavailable, message: expect.stringMatching(/ran out of time/) });
    expect(stub.requests).toHaveLength(1);

    const past = runWithRequestContext({ requestId: 'r2', deadline: Date.now() - 1 }, () => ask(client));
    await expect(past).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(stub.requests).toHaveLength(1);
  });

  it('reads the conversation prefix of a follow-up from the prompt cache', async () => {
    const small = new MessagesApiStub({ minCacheTokens: 100 });
    const client = new ClaudeClient(stubSettings(await small.start(), { maxRetries: 0 }));
    try {
      const long = 'The shop sells bicycles, helmets and repair kits. '.repeat(20);
      const first = [
        { role: 'user' as const, text: 'What do you sell?' },
        { role: 'assistant' as const, text: long },
      ];
      const one = await ask(client, first);
      expect(one.usage.cacheWrite).toBeGreaterThan(0);
      const two = await ask(client, [...first, { role: 'user', text: 'And when do you open?' }, { role: 'assistant', text: 'At 9am.' }]);
      expect(two.usage.cacheRead).toBe(one.usage.cacheWrite);
    } finally {
      await small.stop();
    }
  });
});
