import { Inject, Injectable, Logger, StreamableFile } from '@nestjs/common';
import { BusRequest, StreamEvent, Subjects } from '@askdata/contracts';
import { BusClient, ServiceError, StreamReceiver } from '@askdata/common';
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { errorResponse } from '../http/http-exception.filter';

type S = typeof Subjects.conversation;
type QuestionSubject = S['query'] | S['chatsCreate'] | S['messagesCreate'];

/**
 * Whether a question asks for its answer as it is written: `"stream": true` in the body, or `Accept` naming
 * `text/event-stream` (unless the body says `"stream": false`), but not with `q=0`, which says it is not acceptable.
 */
export function wantsStream(req: Request): boolean {
  const flag = (req.body as { stream?: unknown } | undefined)?.stream;
  if (typeof flag === 'boolean') return flag;
  return (req.headers.accept ?? '').split(',').some((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => /^q\s*=/.test(p));
    return type === 'text/event-stream' && !(q && Number(q.replace(/^q\s*=\s*/, '')) === 0);
  });
}

/** A comment line: ignored by every Server-Sent Events parser, but traffic to a proxy watching for idle connections. */
export const KEEP_ALIVE = ': keep-alive\n\n';
const IDLE = Symbol('idle');

/** `pending`'s value, or IDLE when it takes longer than `ms` (`pending` stays subscribed: await it again). */
async function idleOr<T>(pending: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<typeof IDLE>((ok) => (timer = setTimeout(() => ok(IDLE), ms)));
  try {
    return await Promise.race([pending, idle]);
  } finally {
    clearTimeout(timer);
  }
}

/** One Server-Sent Event. */
export function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Answers as Server-Sent Events. The question goes to conversation as usual, with a stream ticket: conversation
 * sends `start`, `delta`s, `sources` and `done` on the ticket's channel (`StreamReceiver`), each acknowledged as
 * the response takes it, so a slow client slows the answer instead of filling memory. A failure before `start`
 * (404, 422, 503) is an ordinary error response; after it, an `error` event with the contract's error body and
 * status ends the stream, and nothing is stored. A client that goes away cancels the answer.
 */
@Injectable()
export class AnswerStreams {
  private readonly logger = new Logger(AnswerStreams.name);

  constructor(
    private readonly bus: BusClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** `onStart` runs with the chat's id once the answer has started, before anything is sent. */
  async open<Q extends QuestionSubject>(subject: Q, payload: BusRequest<Q>, res: Response, onStart?: (chatId: string) => Promise<void>): Promise<StreamableFile> {
    const receiver = await StreamReceiver.open(this.bus);
    this.bus.request(subject, { ...payload, stream: receiver.ticket }, { timeoutMs: this.config.ANSWER_TIMEOUT_MS }).then(
      () => undefined,
      (e: unknown) => receiver.fail(e as ServiceError),
    );
    const events = receiver[Symbol.asyncIterator]();
    let first: IteratorResult<StreamEvent>;
    try {
      first = await events.next();
      if (onStart && !first.done && first.value.event === 'start') await onStart(first.value.data.chat);
    } catch (e) {
      receiver.cancel();
      throw e;
    }
    let ended = false;
    const logger = this.logger;
    const keepAliveMs = this.config.SSE_KEEP_ALIVE_MS;
    async function* body(): AsyncGenerator<string> {
      // The route's status (201) was set for a JSON answer; a stream is 200, as EventSource expects. Headers go
      // out with the first write, after this.
      res.statusCode = 200;
      try {
        for (let next = first; !next.done;) {
          yield sse(next.value.event, next.value.data);
          const pending = events.next();
          let waited: IteratorResult<StreamEvent> | typeof IDLE;
          // While the model thinks, a comment line now and then keeps proxies from closing the connection as idle.
          while ((waited = await idleOr(pending, keepAliveMs)) === IDLE) yield KEEP_ALIVE;
          next = waited;
        }
      } catch (e) {
        const { status, body } = errorResponse(e, logger);
        yield sse('error', { status, ...body });
      }
      ended = true;
    }
    const stream = Readable.from(body());
    // The response, not the stream: a stream destroyed while it waits for the next event closes only once one comes.
    res.on('close', () => {
      if (!ended) receiver.cancel();
    });
    res.setHeader('Cache-Control', 'no-cache, no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    return new StreamableFile(stream, { type: 'text/event-stream; charset=utf-8' });
  }
}
