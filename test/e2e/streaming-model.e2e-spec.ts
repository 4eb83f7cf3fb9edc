import { MessagesApiStub } from '../stand-ins/messages-api.stub';
import { checkoutPrefix } from '../../bench/lib/service';
import { createProjectOn, eventually, Project, RunningService, startService } from '../support/harness';
import { parseSse, postStream, SseEvent } from '../support/sse';

const HOURS = [{ id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am.' } }];
const TEXT = 'The shop opens at 10am on Saturdays, and at 9am on weekdays.';

const written = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text as string)
    .join('');

describe('streamed answers from the model', () => {
  let stub: MessagesApiStub;
  let service: RunningService;
  let p: Project;
  const url = (path: string) => `${service.url}/v1${path}`;

  beforeAll(async () => {
    stub = new MessagesApiStub();
    const baseUrl = await stub.start();
    service = await startService({
      env: {
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: baseUrl,
        ANTHROPIC_TIMEOUT_MS: '20000',
        ANTHROPIC_MAX_RETRIES: '0',
        RATE_LIMIT_PER_MINUTE: '100000',
        SSE_KEEP_ALIVE_MS: '300',
        // Distributed: subjects of its own, so that the shared service's conversation does not take its questions.
        NATS_SUBJECT_PREFIX: `${checkoutPrefix()}_model`,
      },
    });
    p = await createProjectOn(service);
    await p.upsertAndWait(HOURS, { slug: 'faq' });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await stub?.stop();
  });
  afterEach(() => stub.reset());

  /** No chat of the project is stored. */
  async function expectNothingStored(): Promise<void> {
    const chats = await p.get<{ meta: { total: number } }>('/chats?type=all');
    expect(chats.body.meta.total).toBe(0);
  }

  it("streams Claude's answer in many deltas, its citations as markers, and stores exactly what was streamed", async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: TEXT, cite: [0] }] });
    const r = await postStream(url('/query'), p.key, { text: 'When does the shop open on Saturdays?' });
    expect(r.status).toBe(200);
    const done = r.events[r.events.length - 1];
    expect(done.event).toBe('done');
    expect(done.data.text).toBe(`${TEXT}[1]`);
    expect(written(r.events)).toBe(done.data.text);
    expect(r.events.filter((e) => e.event === 'delta').length).toBeGreaterThan(3);
    expect(stub.requests[stub.requests.length - 1].body.stream).toBe(true);
    const stored = await p.get(`/chats/${r.events[0].data.chat}/messages/${done.data.id}`);
    expect(stored.body.data).toEqual(done.data);
    // Clean up so that the other tests can count chats.
    expect((await p.get<{ meta: { total: number } }>('/chats?type=all')).body.meta.total).toBe(1);
    p = await createProjectOn(service);
    await p.upsertAndWait(HOURS, { slug: 'faq' });
  });

  it.each([
    ['sends an error event', 'error'],
    ['stalls', 'stall'],
  ] as const)('ends the stream with an error event and stores nothing when the model %s after the first delta', async (_what, kind) => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: TEXT, cite: [0] }], fault: { kind, afterDeltas: 4 } });
    const r = await postStream(url('/chats'), p.key, { text: 'When does the shop open on Saturdays?' });
    expect(r.status).toBe(200);
    const names = r.events.map((e) => e.event);
    expect(names[0]).toBe('start');
    expect(names).toContain('delta');
    expect(names[names.length - 1]).toBe('error');
    expect(names).not.toContain('done');
    expect(r.events[r.events.length - 1].data).toEqual({ status: 503, message: expect.any(String) });
    expect(TEXT.startsWith(written(r.events))).toBe(true);
    expect((await p.get(`/chats/${r.events[0].data.chat}`)).status).toBe(404);
    await expectNothingStored();
  });

  it('keeps a stalled stream alive with comment lines, then cancels the model call when the client disconnects, and stores nothing', async () => {
    stub.enqueue({ kind: 'answer', blocks: [{ text: TEXT, cite: [0] }], fault: { kind: 'stall', afterDeltas: 4 } });
    const controller = new AbortController();
    const res = await fetch(url('/chats'), {
      method: 'POST',
      headers: { 'Api-Key': p.key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'When does the shop open on Saturdays?' }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value);
    await eventually('the stalled model response', async () => (stub.open === 1 ? true : undefined), 10_000);
    // Nothing comes from the model now; the gateway still sends a comment line every SSE_KEEP_ALIVE_MS.
    const afterDelta = text.length;
    while (!text.slice(afterDelta).includes(': keep-alive\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(parseSse(text).filter((e) => e.event !== 'start' && e.event !== 'delta')).toEqual([]);
    controller.abort();
    await eventually('the model call closed', async () => (stub.open === 0 ? true : undefined), 10_000);
    const chat = parseSse(text)[0].data.chat as string;
    expect((await p.get(`/chats/${chat}`)).status).toBe(404);
    await expectNothingStored();
  });
});
