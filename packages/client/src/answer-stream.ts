import { apiError, AskdataError, ErrorBody, IncompleteStreamError } from './errors.js';
import { readEvents } from './sse.js';
import { parseJson, type Sent } from './transport.js';
import type { Source } from './types.js';

/** `error` event: the contract's error body and the status the answer would have had; nothing was stored. */
export interface StreamErrorData extends ErrorBody {
  status: number;
}

/** `start` event: the ids of the chat and of the answer message. */
export interface StreamStart {
  chat: string;
  message: string;
}

/** `delta` event: the next piece of the answer's Markdown; the pieces joined are the stored text. */
export interface StreamDelta {
  text: string;
}

/** `sources` event: the answer's sources, as in the message. */
export interface StreamSources {
  sources: Source[];
}

/**
 * The events of a streamed answer, in order: `start`, `delta`s, `sources`, then `done` (the stored resource, as the
 * JSON answer's `data`) or `error`.
 */
export type AnswerEvent<T> =
  | { event: 'start'; data: StreamStart }
  | { event: 'delta'; data: StreamDelta }
  | { event: 'sources'; data: StreamSources }
  | { event: 'done'; data: T }
  | { event: 'error'; data: StreamErrorData };

export const ANSWER_EVENTS = ['start', 'delta', 'sources', 'done', 'error'] as const;

/**
 * A streamed answer: iterate it (once) for its events, or await `final()` for the stored resource. Leaving the loop
 * early closes the connection, which stops the answer (nothing is stored).
 */
export class AnswerStream<T> implements AsyncIterable<AnswerEvent<T>> {
  private used = false;

  /** `send` runs when the stream is first read, so a stream never read sends nothing. */
  constructor(private readonly send: () => Promise<Sent>) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<AnswerEvent<T>, void, undefined> {
    if (this.used) throw new AskdataError('a streamed answer can be read once');
    this.used = true;
    const { response, signal, release } = await this.send();
    try {
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
        throw new AskdataError(`expected an event stream, got ${response.status} ${response.headers.get('content-type') ?? 'without a body'}`);
      }
      let ended = false;
      try {
        for await (const raw of readEvents(response.body)) {
          // After the last event the service closes the stream: it is read to its end rather than cancelled (which a
          // browser reports as a failed request). A consumer that stops at the last event cancels it, harmlessly.
          if (ended || !(ANSWER_EVENTS as readonly string[]).includes(raw.event)) continue; // or a later version's event
          const event = { event: raw.event, data: parseJson(raw.data, `the ${raw.event} event`) } as AnswerEvent<T>;
          ended = event.event === 'done' || event.event === 'error';
          yield event;
        }
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw e;
      }
      if (!ended) throw new IncompleteStreamError('the answer stream ended before its done or error event');
    } finally {
      release();
    }
  }

  /** The text as it is written: the `delta`s only. */
  async *text(): AsyncGenerator<string, void, undefined> {
    for await (const e of this) {
      if (e.event === 'delta') yield e.data.text;
      else if (e.event === 'error') throw failure(e.data);
    }
  }

  /** Reads the stream to its end: the stored resource of `done`, or the typed ApiError of `error`. */
  async final(): Promise<T> {
    for await (const e of this) {
      if (e.event === 'done') return e.data;
      if (e.event === 'error') throw failure(e.data);
    }
    throw new IncompleteStreamError('the answer stream ended before its done or error event');
  }
}

/** The typed error of an `error` event. */
function failure(data: StreamErrorData): AskdataError {
  return apiError(data.status, { message: data.message, ...(data.errors ? { errors: data.errors } : {}) });
}
