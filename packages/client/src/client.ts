import { AnswerStream } from './answer-stream.js';
import { data } from './resources/base.js';
import { Collections, Items, Tenants } from './resources/catalog.js';
import { Chats } from './resources/chats.js';
import { Sessions } from './resources/sessions.js';
import { Upserts } from './resources/upserts.js';
import { ClientOptions, RequestOptions, Transport } from './transport.js';
import type { QuestionInput, SearchInput } from './inputs.js';
import type { ChatMessage, SearchHit } from './types.js';

/**
 * The /v1 API of one project. Every call takes `RequestOptions` last (signal, timeout, retries, Idempotency-Key);
 * POSTs and DELETEs that do work send an Idempotency-Key (generated, reused by their retries), so a retry after a
 * 503 or a lost connection never does the work twice. Failures throw `ApiError` subclasses with the error body.
 */
export class AskdataClient {
  readonly upserts: Upserts;
  readonly items: Items;
  readonly collections: Collections;
  readonly tenants: Tenants;
  readonly chats: Chats;
  readonly sessions: Sessions;
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    this.upserts = new Upserts(this.http);
    this.items = new Items(this.http);
    this.collections = new Collections(this.http);
    this.tenants = new Tenants(this.http);
    this.chats = new Chats(this.http);
    this.sessions = new Sessions(this.http);
  }

  /** A one-off question: the answer (its chat takes feedback, not follow-ups). */
  query(input: QuestionInput, options?: RequestOptions): Promise<ChatMessage> {
    return data(this.http, { method: 'POST', path: '/query', body: input, keyed: true }, options);
  }

  /** As `query`, the answer streamed; `done` carries the message. */
  queryStream(input: QuestionInput, options?: RequestOptions): AnswerStream<ChatMessage> {
    return new AnswerStream(() => this.http.send({ method: 'POST', path: '/query', body: input, stream: true }, options));
  }

  /** The best items for the question, best first, without an answer. Read-only: sent without an Idempotency-Key. */
  search(input: SearchInput, options?: RequestOptions): Promise<SearchHit[]> {
    return data(this.http, { method: 'POST', path: '/search', body: input, safe: true }, options);
  }
}
