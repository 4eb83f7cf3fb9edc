import { ErrorCode, StreamControl, StreamEvent, StreamFrame, StreamTicket } from '@askdata/contracts';
import { randomUUID } from 'node:crypto';
import type { BusClient } from './bus-client';
import { timeLeft } from './deadline';
import { ServiceError } from './service-error';

/** How often a sender says it is alive while it has nothing to send. */
export const STREAM_HEARTBEAT_MS = 5000;
/** How long a receiver waits for a frame (a heartbeat included), and a sender for an acknowledgement, before giving up. */
export const STREAM_IDLE_MS = 3 * STREAM_HEARTBEAT_MS;
/** Frames a sender may send beyond the last one acknowledged. */
export const STREAM_WINDOW = 64;

const framesOf = (id: string) => `stream.${id}`;
const controlsOf = (id: string) => `stream.${id}.ctl`;

/**
 * The sending end of a stream (the service answering): events numbered from 1 on the ticket's channel, never more
 * than the ticket's window beyond what the receiver acknowledged (a sender that gets ahead waits, so a slow
 * reader slows the producer instead of filling memory), a heartbeat while nothing is sent. `signal` aborts when
 * the receiver cancels (its client went away), stops acknowledging for {@link STREAM_IDLE_MS}, or the request's
 * deadline passes: the work behind the stream should stop then, and store nothing.
 */
export class StreamSender {
  private readonly controller = new AbortController();
  private seq = 0;
  private acked = 0;
  private wake: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;

  private constructor(
    private readonly bus: BusClient,
    private readonly ticket: StreamTicket,
  ) {}

  static async open(bus: BusClient, ticket: StreamTicket): Promise<StreamSender> {
    const sender = new StreamSender(bus, ticket);
    sender.unlisten = await bus.listen(controlsOf(ticket.id), (c) => sender.control(c as StreamControl));
    sender.heartbeat = setInterval(() => void bus.send(framesOf(ticket.id), { seq: 0, event: 'ping' } satisfies StreamFrame).catch(() => undefined), STREAM_HEARTBEAT_MS);
    sender.heartbeat.unref();
    return sender;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Fails with why the stream stopped when it has. */
  throwIfStopped(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason as Error;
  }

  /** Sends an event once the window has room; fails when the stream has stopped meanwhile. */
  async send(event: StreamEvent): Promise<void> {
    while (this.seq - this.acked >= this.ticket.window) {
      this.throwIfStopped();
      const waitMs = Math.min(STREAM_IDLE_MS, timeLeft());
      if (waitMs <= 0) this.stop(new ServiceError(ErrorCode.Unavailable, 'The request ran out of time while its reader was slow. Nothing was stored.'));
      const acked = this.acked;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, waitMs));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      if (this.acked === acked && !this.controller.signal.aborted) {
        this.stop(new ServiceError(ErrorCode.Unavailable, 'The reader of the stream stopped taking it. Nothing was stored.'));
      }
    }
    this.throwIfStopped();
    // Object.assign rather than a spread followed by a new member: Node 20's V8 keeps such a copy, and all it references,
    // through young-generation collections until the next full one.
    await this.bus.send(framesOf(this.ticket.id), Object.assign({}, event, { seq: ++this.seq }));
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.unlisten?.();
    this.wake?.();
  }

  private control(c: StreamControl): void {
    if ('cancel' in c) this.stop(new ServiceError(ErrorCode.Unavailable, 'The client stopped reading the answer. Nothing was stored.'));
    else if (typeof c.ack === 'number' && c.ack > this.acked) this.acked = c.ack;
    this.wake?.();
  }

  private stop(reason: ServiceError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
    this.wake?.();
  }
}

/**
 * The receiving end (the gateway): a fresh channel, its events in order as an async iterator that acknowledges
 * each event as it is taken (so the sender runs at the reader's pace). Ends after `done`; fails on a gap in the
 * numbering or when nothing, not even a heartbeat, came for {@link STREAM_IDLE_MS}. `fail` ends it with an error
 * from outside (the request behind it failed); `cancel` tells the sender to stop.
 */
export class StreamReceiver implements AsyncIterable<StreamEvent> {
  readonly ticket: StreamTicket;
  private readonly queue: StreamEvent[] = [];
  private next = 1;
  private error: ServiceError | null = null;
  private ended = false;
  private wake: (() => void) | null = null;
  private unlisten: (() => void) | undefined;

  private constructor(private readonly bus: BusClient) {
    this.ticket = { id: randomUUID(), window: STREAM_WINDOW };
  }

  static async open(bus: BusClient): Promise<StreamReceiver> {
    const receiver = new StreamReceiver(bus);
    receiver.unlisten = await bus.listen(framesOf(receiver.ticket.id), (f) => receiver.frame(f as StreamFrame));
    return receiver;
  }

  fail(error: ServiceError): void {
    this.error ??= error;
    this.wake?.();
  }

  cancel(): void {
    this.close();
    void this.bus.send(controlsOf(this.ticket.id), { cancel: true } satisfies StreamControl).catch(() => undefined);
  }

  close(): void {
    this.ended = true;
    this.unlisten?.();
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    try {
      while (true) {
        const event = this.queue.shift();
        if (event) {
          void this.bus.send(controlsOf(this.ticket.id), { ack: this.next - 1 - this.queue.length } satisfies StreamControl).catch(() => undefined);
          yield event;
          if (event.event === 'done') return;
          continue;
        }
        if (this.error) throw this.error;
        if (this.ended) return;
        const heard = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), STREAM_IDLE_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        this.wake = null;
        if (!heard) this.fail(new ServiceError(ErrorCode.Unavailable, 'The service writing the answer went quiet. Nothing was stored.'));
      }
    } finally {
      this.close();
    }
  }

  private frame(f: StreamFrame): void {
    if (f.seq === 0) {
      this.wake?.();
      return;
    }
    if (f.seq !== this.next) {
      this.fail(new ServiceError(ErrorCode.Unavailable, 'Part of the answer was lost on its way. Nothing was stored.'));
      return;
    }
    this.next++;
    const { seq: _seq, ...event } = f;
    this.queue.push(event as StreamEvent);
    this.wake?.();
  }
}
