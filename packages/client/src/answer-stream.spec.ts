import { AnswerStream } from './answer-stream.js';
import { IncompleteStreamError, ServiceUnavailableError } from './errors.js';
import { paginate } from './pages.js';
import { readEvents } from './sse.js';
import type { Sent } from './transport.js';
import type { ChatMessage, Page } from './types.js';

/** A body that delivers the pieces, then ends (or stays open), and says whether it was cancelled. */
function body(pieces: Array<string | Uint8Array>, open = false): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const encoder = new TextEncoder();
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < pieces.length) {
        const piece = pieces[i++];
        controller.enqueue(typeof piece === 'string' ? encoder.encode(piece) : piece);
      } else if (open) return new Promise(() => undefined);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

async function events(pieces: Array<string | Uint8Array>) {
  const out = [];
  for await (const e of readEvents(body(pieces).stream)) out.push(e);
  return out;
}

const sent = (stream: ReadableStream<Uint8Array>, contentType = 'text/event-stream'): (() => Promise<Sent>) => {
  return () =>
    Promise.resolve({ response: new Response(stream, { status: 200, headers: { 'Content-Type': contentType } }), signal: new AbortController().signal, release: () => undefined });
};

const WIRE =
  ': comment\r\nevent: start\r\ndata: {"chat":"c","message":"m"}\r\n\r\n' +
  'event: delta\ndata: {"text":"We open"}\n\n' +
  'event: delta\rdata: {"text":" at 9am. [1]"}\r\r' +
  'event: sources\ndata: {"sources":[]}\n\n' +
  'event: done\ndata: {"id":"m","text":"We open at 9am. [1]"}\n\n';

describe('streamed answers', () => {
  it('parses the events whatever the line ends and however the bytes are split, multi-byte characters included', async () => {
    const whole = await events([WIRE]);
    expect(whole.map((e) => e.event)).toEqual(['start', 'delta', 'delta', 'sources', 'done']);
    expect(whole[2].data).toBe('{"text":" at 9am. [1]"}');
    const byteByByte = (text: string) => Array.from(new TextEncoder().encode(text), (b) => Uint8Array.of(b));
    expect(await events(byteByByte(WIRE))).toEqual(whole);
    expect(await events(byteByByte('data: a\ndata: b\n\nevent: x\n\ndata:über\n\ndata: cut'))).toEqual([
      { event: 'message', data: 'a\nb' },
      { event: 'message', data: 'über' },
    ]);
  });

  it('yields typed events in order and final() gives the stored resource', async () => {
    const stream = new AnswerStream<ChatMessage>(sent(body([WIRE]).stream));
    const seen = [];
    for await (const e of stream) seen.push(e);
    expect(seen.map((e) => e.event)).toEqual(['start', 'delta', 'delta', 'sources', 'done']);
    expect(seen[0]).toEqual({ event: 'start', data: { chat: 'c', message: 'm' } });
    await expect(new AnswerStream<ChatMessage>(sent(body([WIRE]).stream)).final()).resolves.toEqual({ id: 'm', text: 'We open at 9am. [1]' });
    const text = [];
    for await (const t of new AnswerStream<ChatMessage>(sent(body([WIRE]).stream)).text()) text.push(t);
    expect(text).toEqual(['We open', ' at 9am. [1]']);
  });

  it('turns an error event into the typed error, and a stream cut short into IncompleteStreamError', async () => {
    const failed = 'event: start\ndata: {"chat":"c","message":"m"}\n\nevent: error\ndata: {"status":503,"message":"The model is unavailable."}\n\n';
    const error = await new AnswerStream(sent(body([failed]).stream)).final().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, body: { message: 'The model is unavailable.' } });
    await expect(new AnswerStream(sent(body([WIRE.slice(0, WIRE.indexOf('event: done'))]).stream)).final()).rejects.toBeInstanceOf(IncompleteStreamError);
    await expect(new AnswerStream(sent(body(['{}']).stream, 'application/json')).final()).rejects.toThrow(/expected an event stream/);
  });

  it('closes the connection when the reader stops early, and sends nothing until read', async () => {
    const wire = body([WIRE.slice(0, WIRE.indexOf('event: done'))], true);
    let sends = 0;
    const stream = new AnswerStream(() => (sends++, sent(wire.stream)()));
    expect(sends).toBe(0);
    for await (const e of stream) if (e.event === 'start') break;
    expect(sends).toBe(1);
    expect(wire.cancelled()).toBe(true);
  });
});

describe('pagination', () => {
  const page = (n: number, last: number, host = 'http://elsewhere.example'): Page<number> => ({
    data: [n * 10, n * 10 + 1],
    meta: { current_page: n, from: 1, last_page: last, links: [], path: `${host}/v1/items`, per_page: 2, to: 2, total: last * 2 },
    links: { first: `${host}/v1/items?page=1`, last: `${host}/v1/items?page=${last}`, prev: null, next: n < last ? `${host}/v1/items?collection=evil&page=${n + 1}` : null },
  });

  it('follows links.next by its page number only, keeping the caller’s parameters, until the last page', async () => {
    const asked: Array<{ page?: number; collection?: string }> = [];
    const all: number[] = [];
    for await (const x of paginate((p: { page?: number; collection?: string }) => (asked.push(p), Promise.resolve(page(p.page ?? 1, 3))), { collection: 'faq' })) all.push(x);
    expect(all).toEqual([10, 11, 20, 21, 30, 31]);
    expect(asked).toEqual([{ collection: 'faq' }, { collection: 'faq', page: 2 }, { collection: 'faq', page: 3 }]);
  });
});
