import { ErrorCode, RetrievedChunk } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { ClaudeClient, ClaudeSettings } from './claude.client';
import { MessagesApiStub, stubSettings } from './testing/messages-api.stub';

function chunk(n: number, text: string): RetrievedChunk {
  return {
    id: `0190f000-0000-7000-8000-00000000000${n}`, item_id: `item-${n}`, collection: 'docs', tenant: null, url: n === 1 ? 'https://example.com/1' : null,
    metadata: {}, score: 1, snippet: text.slice(0, 40), text, chunk: 0,
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

  it('sends chunks as search_result blocks with citations, a cached system prompt and the history in order', async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'We open at 9am.', cite: [1] }, { text: ' Closed on Sundays.', cite: [0, 1] }] });
    const answer = await new ClaudeClient(settings).answer({
      question: 'When do you open?',
      history: [{ role: 'user', text: 'Hi' }, { role: 'assistant', text: 'Hello!' }],
      chunks: [chunk(1, 'Closed on Sundays.'), chunk(2, 'Opening hours: 9am to 5pm.')],
      instructions: 'Be brief.',
    });
    expect(answer.text).toBe('We open at 9am.[2] Closed on Sundays.[1][2]');
    expect(answer.usage).toEqual({ input: 100, output: 20, cacheRead: 80, cacheWrite: 0 });

    const [req] = stub.requests;
    expect(req.problems).toEqual([]);
    expect(req.body).toMatchObject({ model: 'claude-test', max_tokens: 300 });
    const system = req.body.system as Array<{ text: string; cache_control?: unknown }>;
    expect(system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(system[0].text).toContain('Be brief.');
    const messages = req.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0].content).toBe('Hi');
    const last = messages[2].content as Array<Record<string, unknown>>;
    expect(last.map((b) => b.type)).toEqual(['search_result', 'search_result', 'text']);
    expect(last[0]).toMatchObject({
      source: 'https://example.com/1', title: 'docs: item-1', citations: { enabled: true }, content: [{ type: 'text', text: 'Closed on Sundays.' }],
    });
    expect(last[2]).toEqual({ type: 'text', text: 'When do you open?' });
  });

  it("sends a record's `Label: value` lines as they are, and asks for answers from its fields", async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: 'Warranty: 2 years.', cite: [0] }] });
    const record = 'Orla desk lamp\nBrand: Lumo\nWarranty: 2 years\nSpecs > Weight: 1.2 kg';
    const answer = await new ClaudeClient(settings).answer({ question: 'What warranty does the Orla desk lamp have?', history: [], chunks: [chunk(1, record)], instructions: null });
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
    const history = [{ role: 'user' as const, text: 'List the shops.' }, { role: 'assistant' as const, text: 'North and South.' }];
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
