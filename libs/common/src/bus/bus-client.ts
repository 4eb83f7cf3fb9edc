import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ClientProxy, NatsRecord } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { createInbox, headers as natsHeaders, Msg, MsgHdrs, NatsConnection } from 'nats';
import { BroadcastContract, BroadcastSubject, BusRequest, BusResponse, ErrorCode, RequestSubject, isBusError } from '@askdata/contracts';
import { lastValueFrom, timeout, TimeoutError } from 'rxjs';
import { metrics } from '../observability/metrics';
import { currentDeadline, currentRequestId, DEADLINE_HEADER, REQUEST_ID_HEADER } from '../observability/request-context';
import { BusOptions, natsSubject } from './bus.options';
import { inProcessBroadcast, inProcessListen } from './in-process.transport';
import { LargeMessages, maxPayload } from './large-messages';
import { ServiceError } from './service-error';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const BUS_PROXY = Symbol('BUS_PROXY');
export const BUS_OPTIONS = Symbol('BUS_OPTIONS');
export const BUS_SERVICE = Symbol('BUS_SERVICE');

/**
 * Typed requests over the bus. Every request has a deadline, sent with it (`x-deadline`, epoch milliseconds): its
 * timeout from now, or sooner when it is made while handling a bus request whose own deadline comes first, so a
 * chain of requests never outlives its first caller. Every failure comes back as a {@link ServiceError}: the
 * service's own typed error, or UNAVAILABLE when the bus or the service did not answer in time.
 */
@Injectable()
export class BusClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BusClient.name);
  /** Over NATS: the reply inbox of this client's requests, and the requests awaiting a reply on it. */
  private replies: Replies | undefined;
  private lastToken = 0;
  /** Over NATS: requests and replies larger than the server carries. */
  private large: LargeMessages | undefined;
  /** In-process subscriptions, undone at shutdown (the in-process registry outlives this client). */
  private readonly unlisten: Array<() => void> = [];

  constructor(
    @Inject(BUS_PROXY) private readonly proxy: ClientProxy,
    @Inject(BUS_OPTIONS) private readonly options: BusOptions,
    @Inject(BUS_SERVICE) private readonly service: string,
  ) {}

  async request<S extends RequestSubject>(subject: S, payload: BusRequest<S>, opts: { timeoutMs?: number } = {}): Promise<BusResponse<S>> {
    const now = Date.now();
    const deadline = Math.min(now + (opts.timeoutMs ?? this.options.timeoutMs), currentDeadline() ?? Infinity);
    const ms = deadline - now;
    if (ms <= 0) throw new ServiceError(ErrorCode.Unavailable, `No time was left to ask the service behind ${subject}.`);
    const headers = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
    headers.set(DEADLINE_HEADER, String(deadline));
    const stop = metrics.busDuration.startTimer({ service: this.service, subject });
    try {
      const response =
        this.options.kind === 'nats'
          ? await this.natsRequest<BusResponse<S>>(subject, payload, headers, ms)
          : await lastValueFrom(this.proxy.send<BusResponse<S>, NatsRecord<BusRequest<S>>>(subject, new NatsRecord(payload, headers)).pipe(timeout(ms)));
      stop({ outcome: 'ok' });
      return response;
    } catch (e) {
      const error = this.toServiceError(e, subject);
      stop({ outcome: error.code });
      throw error;
    }
  }

  /**
   * One NATS request in the framework's wire format (`{pattern, data, id}` out, `{err, response}` back), its reply
   * awaited on this client's reply inbox ({@link awaitReply}). A request or reply larger than the server carries
   * travels through the object store ({@link LargeMessages}).
   */
  private async natsRequest<T>(subject: string, payload: unknown, headers: MsgHdrs, ms: number): Promise<T> {
    const nc = (await this.proxy.connect()) as NatsConnection;
    const bus = this.options as Extract<BusOptions, { kind: 'nats' }>;
    const large = (this.large ??= new LargeMessages(nc, bus.subjectPrefix ?? ''));
    const body = await large.outgoing(encoder.encode(JSON.stringify({ pattern: subject, data: payload, id: randomUUID() })), headers);
    const message = await this.awaitReply(nc, subject, natsSubject(bus, subject), body, headers, ms);
    const reply = JSON.parse(decoder.decode(await large.incoming(message))) as { err?: unknown; response?: T };
    if (reply.err !== undefined && reply.err !== null) throw this.toServiceError(reply.err, subject);
    return reply.response as T;
  }

  /**
   * Publishes a request with a reply subject under this client's one reply inbox (`<inbox>.<token>`, subscribed to
   * once) and waits for its reply: UNAVAILABLE at the deadline, at once when the server says nobody listens on the
   * subject, and at once when the connection drops ({@link failInFlight}). A reply that comes after its request gave
   * up is dropped. Unlike the NATS client's own requests, a request answered in time creates no error and no timer
   * object beyond its one timeout.
   */
  private awaitReply(nc: NatsConnection, subject: string, target: string, body: Uint8Array, headers: MsgHdrs, ms: number): Promise<Msg> {
    // Its inbox is the connection's: a connection made anew (the framework's client recreated) gets one of its own.
    const replies = this.replies?.nc === nc ? this.replies : (this.replies = this.openReplies(nc));
    const token = (++this.lastToken).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        replies.waiting.delete(token);
        reject(new ServiceError(ErrorCode.Unavailable, `The service behind ${subject} did not answer in time.`));
      }, ms);
      replies.waiting.set(token, { subject, resolve, reject, timer });
      try {
        nc.publish(target, body, { reply: `${replies.inbox}.${token}`, headers });
      } catch (e) {
        clearTimeout(timer);
        replies.waiting.delete(token);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  /** Subscribes to this client's reply inbox: each reply goes to the request waiting for its token, if any still is. */
  private openReplies(nc: NatsConnection): Replies {
    const replies: Replies = { nc, inbox: createInbox(), waiting: new Map() };
    const prefix = replies.inbox.length + 1;
    nc.subscribe(`${replies.inbox}.*`, {
      callback: (err, message) => {
        if (err) {
          // The subscription is over (refused, say): what waits fails, and the next request subscribes again.
          this.logger.warn(`bus replies not heard: ${describe(err)}`);
          this.failInFlight();
          if (this.replies === replies) this.replies = undefined;
          return;
        }
        const token = message.subject.slice(prefix);
        const waiting = replies.waiting.get(token);
        if (!waiting) return;
        replies.waiting.delete(token);
        clearTimeout(waiting.timer);
        // A status from the server instead of a reply: 503 when no subscriber listens on the subject.
        if (message.headers?.hasError) {
          const status = message.headers.code === 503 ? 'nobody listens on it' : `${message.headers.code} ${message.headers.description}`;
          this.logger.warn(`bus request ${waiting.subject} not answered: ${status}`);
          waiting.reject(new ServiceError(ErrorCode.Unavailable, `The service behind ${waiting.subject} is unavailable.`));
        } else waiting.resolve(message);
      },
    });
    return replies;
  }

  /**
   * Sends a broadcast to every subscriber (every replica of every app that subscribes, this one included), fire and
   * forget. In-process, every subscriber has heard it when this returns. Over NATS, with `confirm`, this returns once
   * the server has taken the message and queued it to every subscriber, so that a reply sent afterwards (on another
   * connection) cannot overtake it; it throws when the bus is down.
   */
  async publish<S extends BroadcastSubject>(subject: S, payload: BroadcastContract[S], opts: { confirm?: boolean } = {}): Promise<void> {
    if (this.options.kind !== 'nats') {
      inProcessBroadcast(subject, payload, (e) => this.logger.warn(`broadcast ${subject} listener failed: ${describe(e)}`));
      return;
    }
    const nc = (await this.proxy.connect()) as NatsConnection;
    nc.publish(natsSubject(this.options, subject), encoder.encode(JSON.stringify(payload)));
    if (opts.confirm) await nc.flush();
  }

  /**
   * Hears every broadcast on `subject` (across reconnections; what is sent while the connection is down is not
   * heard, see {@link watchConnection}). Returns whether other processes' broadcasts can be heard: false
   * in-process, where the handler hears this process's broadcasts only.
   */
  async subscribe<S extends BroadcastSubject>(subject: S, handler: (payload: BroadcastContract[S]) => void): Promise<boolean> {
    if (this.options.kind !== 'nats') {
      this.unlisten.push(inProcessListen(subject, (payload) => handler(payload as BroadcastContract[S])));
      return false;
    }
    const nc = (await this.proxy.connect()) as NatsConnection;
    nc.subscribe(natsSubject(this.options, subject), {
      callback: (err, message) => {
        if (err) return;
        try {
          handler(JSON.parse(decoder.decode(message.data)) as BroadcastContract[S]);
        } catch (e) {
          this.logger.warn(`broadcast ${subject} not understood: ${describe(e)}`);
        }
      },
    });
    return true;
  }

  /**
   * Sends a message to whoever listens on a channel subject (a stream's frames or controls: `stream.<id>`), fire
   * and forget. In-process, the listeners have heard it when this returns; over NATS, messages from one process
   * arrive in the order sent.
   */
  async send(subject: string, payload: unknown): Promise<void> {
    if (this.options.kind !== 'nats') {
      inProcessBroadcast(subject, payload, (e) => this.logger.warn(`channel ${subject} listener failed: ${describe(e)}`));
      return;
    }
    const nc = (await this.proxy.connect()) as NatsConnection;
    nc.publish(natsSubject(this.options, subject), encoder.encode(JSON.stringify(payload)));
  }

  /** Hears the messages sent on a channel subject until the returned function is called. */
  async listen(subject: string, handler: (payload: unknown) => void): Promise<() => void> {
    if (this.options.kind !== 'nats') return inProcessListen(subject, handler);
    const nc = (await this.proxy.connect()) as NatsConnection;
    const sub = nc.subscribe(natsSubject(this.options, subject), {
      callback: (err, message) => {
        if (err) return;
        try {
          handler(JSON.parse(decoder.decode(message.data)));
        } catch (e) {
          this.logger.warn(`channel ${subject} message not understood: ${describe(e)}`);
        }
      },
    });
    // The subscription is registered with the server before anything the listener asks for is sent.
    await nc.flush();
    return () => sub.unsubscribe();
  }

  /**
   * Tells `lost` when the NATS connection drops and `restored` when it is back: broadcasts sent in between were not
   * heard. Never called in-process, where nothing is lost.
   */
  watchConnection(listener: { lost(): void; restored(): void }): void {
    if (this.options.kind !== 'nats') return;
    this.onConnection('disconnect', () => listener.lost());
    this.onConnection('reconnect', () => listener.restored());
  }

  /** The NATS client's connection events. */
  private onConnection(event: 'disconnect' | 'reconnect', callback: () => void): void {
    (this.proxy as unknown as { on(event: 'disconnect' | 'reconnect', callback: () => void): void }).on(event, callback);
  }

  /**
   * The largest message the bus carries, in bytes: the NATS server's `max_payload` (1 MiB unless configured), or
   * null in-process, where nothing limits it.
   */
  async messageBytesLimit(): Promise<number | null> {
    if (this.options.kind !== 'nats') return null;
    return maxPayload((await this.proxy.connect()) as NatsConnection);
  }

  /** Readiness: the bus connection is up (always, in-process). */
  async isConnected(): Promise<boolean> {
    if (this.options.kind === 'in-process') return true;
    try {
      await this.proxy.connect();
      const nc = this.proxy.unwrap<{ isClosed(): boolean }>();
      return !nc.isClosed();
    } catch {
      return false;
    }
  }

  /**
   * Connects at start rather than on the first request, so that the connection's own messages (disconnected,
   * reconnected) are not logged under that request's correlation id. If NATS is not there yet, the first request
   * connects.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.options.kind !== 'nats') return;
    // A request in flight when the connection drops gets no reply on it: 503 now rather than at its timeout.
    this.onConnection('disconnect', () => this.failInFlight());
    await this.proxy.connect().catch((e: unknown) => this.logger.warn(`bus not reachable at start: ${describe(e)}`));
  }

  private failInFlight(): void {
    if (!this.replies) return;
    const error = new ServiceError(ErrorCode.Unavailable, 'The bus connection was lost while the request was in flight.');
    for (const waiting of this.replies.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.replies.waiting.clear();
  }

  async onApplicationShutdown(): Promise<void> {
    this.unlisten.splice(0).forEach((undo) => undo());
    await this.proxy.close();
  }

  private toServiceError(e: unknown, subject: string): ServiceError {
    if (e instanceof ServiceError) return e;
    if (isBusError(e)) return ServiceError.fromBusError(e);
    if (e instanceof TimeoutError) {
      return new ServiceError(ErrorCode.Unavailable, `The service behind ${subject} did not answer in time.`);
    }
    this.logger.warn(`bus request ${subject} failed: ${describe(e)}`);
    return new ServiceError(ErrorCode.Unavailable, `The service behind ${subject} is unavailable.`);
  }
}

/** A client's reply inbox and the requests awaiting their replies on it, by token. */
interface Replies {
  nc: NatsConnection;
  inbox: string;
  waiting: Map<string, { subject: string; resolve: (message: Msg) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>;
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.message;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
