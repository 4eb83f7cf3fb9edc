import { ErrorCode, RetrievedChunk } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { AnswerWriter } from '../answers/answer-writer';
import { ClaudeAnswerer } from './claude-answerer';
import { ClaudeClient, ClaudeSettings } from './claude.client';
import { MessagesApiStub, Reply, stubSettings } from '../../../../test/stand-ins/messages-api.stub';

function chunk(n: number, text: string): RetrievedChunk {
  return {
    id: `0190f000-0000-7000-8000-00000000000${n}`,
    item_id: `item-${n}`,
    collection: 'docs',
    tenant: null,
    url: null,
    metadata: {},
    score: 1,
    snippet: text.slice(0, 40),
    text,
    chunk: 0,
  };
}

const CHUNKS = [chunk(1, 'Closed on Sundays.'), chunk(2, 'Opening hours: 9am to 5pm.'), chunk(3, 'Returns within 30 days.')];

describe('streamed answers from Claude', () => {
  let stub: MessagesApiStub;
  let settings: ClaudeSettings;

  beforeEach(async () => {
    stub = new MessagesApiStub();
    settings = stubSettings(await stub.start(), { timeoutMs: 5000, maxRetries: 0 });
  });
  afterEach(() => stub.stop());

  /** Streams one scripted reply through the answerer and the writer: the pieces sent and the answer to store. */
  async function stream(reply: Reply, maxChars = 20000, signal = new AbortController().signal) {
    stub.enqueue(reply);
    const pieces: string[] = [];
    const writer = new AnswerWriter(CHUNKS, maxChars, async (t) => void pieces.push(t));
    const answerer = new ClaudeAnswerer(new ClaudeClient(settings), 'claude-test', false);
    const request = { question: 'When?', history: [], chunks: CHUNKS, instructions: null };
    const generated = await answerer.generateStream(request, (d) => writer.draft(d), signal);
    return { pieces, answer: await writer.finish(generated) };
  }

  it('sends the text as it is written, citations as markers in order, and stores exactly what was sent', async () => {
    const { pieces, answer } = await stream({
      kind: 'answer',
      blocks: [
        { text: 'We open at 9am on weekdays and ' },
        { text: 'close at 5pm. ', cite: [1] },
        { text: 'On Sundays we are closed (note [4]).', cite: [0] },
        { text: ' Returns take 30 days.', cite: [2, 1] },
      ],
    });
    expect(stub.requests[0].body.stream).toBe(true);
    expect(stub.requests[0].problems).toEqual([]);
    expect(answer.text).toBe('We open at 9am on weekdays and close at 5pm.[1] On Sundays we are closed (note \\[4\\]).[2] Returns take 30 days.[3][1]');
    expect(answer.sources.map((s) => s.item_id)).toEqual(['item-2', 'item-1', 'item-3']);
    expect(pieces.join('')).toBe(answer.text);
    // Sent as it came, not at once at the end.
    expect(pieces.length).toBeGreaterThan(8);
    expect(pieces.slice(0, -1).join('').length).toBeGreaterThan(answer.text.length / 2);
  });

  it('stores exactly what was sent when the answer is cut at the length limit', async () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} says something about the hours.`).join(' ');
    const { pieces, answer } = await stream({ kind: 'answer', blocks: [{ text: long, cite: [1] }] }, 800);
    expect(answer.finish).toBe('truncated');
    expect(answer.text.length).toBeLessThanOrEqual(800);
    expect(pieces.join('')).toBe(answer.text);
  });

  it.each([
    ['stalls mid-stream', 'stall'],
    ['cuts the stream', 'cut'],
    ['sends an error event', 'error'],
  ] as const)('fails UNAVAILABLE when the model %s after the first delta', async (_what, kind) => {
    const reply: Reply = { kind: 'answer', blocks: [{ text: 'We open at 9am on weekdays and close at 5pm.', cite: [1] }], fault: { kind, afterDeltas: 3 } };
    const pieces: string[] = [];
    stub.enqueue(reply);
    const writer = new AnswerWriter(CHUNKS, 20000, async (t) => void pieces.push(t));
    // A stall is noticed after ANTHROPIC_TIMEOUT_MS without an event.
    const answerer = new ClaudeAnswerer(new ClaudeClient({ ...settings, timeoutMs: kind === 'stall' ? 500 : settings.timeoutMs }), 'claude-test', false);
    const failure = await answerer
      .generateStream({ question: 'When?', history: [], chunks: CHUNKS, instructions: null }, (d) => writer.draft(d), new AbortController().signal)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).code).toBe(ErrorCode.Unavailable);
    // What was sent before the failure is a start of the answer (a cut connection may lose the last events).
    expect('We open at 9am '.startsWith(pieces.join(''))).toBe(true);
    if (kind !== 'cut') expect(pieces.join('')).toBe('We open at 9am ');
  });

  it('stops the model call when its reader goes away', async () => {
    const controller = new AbortController();
    const reply: Reply = { kind: 'answer', blocks: [{ text: 'We open at 9am on weekdays and close at 5pm.' }], fault: { kind: 'stall', afterDeltas: 4 } };
    const pending = stream(reply, 20000, controller.signal).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const reason = new ServiceError(ErrorCode.Unavailable, 'gone');
    controller.abort(reason);
    expect(await pending).toBe(reason);
  });
});
