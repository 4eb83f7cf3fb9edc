import { Logger } from '@nestjs/common';
import { MicroserviceOptions, ServerNats } from '@nestjs/microservices';
import { ErrorCode } from '@askdata/contracts';
import { headers as natsHeaders, Msg, MsgHdrs, NatsConnection, NatsError, PublishOptions } from 'nats';
import { BusHandlers } from './bus-handlers';
import { InProcessServer } from './in-process.transport';
import { LargeMessages } from './large-messages';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export type BusOptions = { kind: 'in-process'; timeoutMs: number } | { kind: 'nats'; url: string; timeoutMs: number; subjectPrefix?: string };

/** The NATS subject of a bus subject: in the deployment's namespace when it has one. */
export function natsSubject(bus: { subjectPrefix?: string }, subject: string): string {
  return bus.subjectPrefix ? `${bus.subjectPrefix}.${subject}` : subject;
}

/**
 * Nest's NATS server, listening on the subjects of the deployment's namespace (`<prefix>.<subject>`). Handlers are
 * still found by the subject alone, so the same controllers serve every namespace. Requests and replies larger than
 * the server carries travel through the object store ({@link LargeMessages}). The requests of `handlers` are
 * answered by them ({@link answer}), the rest through the framework.
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly queue: string;
  private readonly log = new Logger('Bus');
  private large: LargeMessages | undefined;

  constructor(
    options: ConstructorParameters<typeof ServerNats>[0] & { queue: string },
    private readonly prefix: string,
    private readonly handlers?: BusHandlers,
  ) {
    super(options);
    this.queue = options.queue;
  }

  /** ServerNats#handleMessage, with the request's body and the reply's taken from and put in the store if large. */
  override async handleMessage(channel: string, message: Msg): Promise<unknown> {
    const data = await this.read(channel, message);
    if (data === null) return;
    const received = Object.create(message, {
      data: { value: data },
      respond: { value: (body?: Uint8Array, opts?: PublishOptions) => (this.reply(channel, message, body ?? new Uint8Array(0), opts), true) },
    }) as Msg;
    return super.handleMessage(channel, received);
  }

  /**
   * A request to one of `handlers`: read, handled ({@link BusHandlers.handle}) and answered in the framework's wire
   * format (`{id, response}` or `{id, err}`). A message without an id (an event) or a reply subject is not a request.
   */
  async answer(channel: string, message: Msg): Promise<void> {
    const data = await this.read(channel, message);
    if (data === null) return;
    let packet: { id?: unknown; data?: unknown };
    try {
      packet = JSON.parse(decoder.decode(data)) as { id?: unknown; data?: unknown };
    } catch (e) {
      return this.unreadable(channel, message, e);
    }
    if (packet.id === undefined || !message.reply) return;
    const reply = await this.handlers!.handle(channel, packet.data, message.headers);
    let body: Uint8Array;
    try {
      // Object.assign rather than a spread followed by a new member: Node 20's V8 keeps such a copy, and all it references,
      // through young-generation collections until the next full one.
      body = encoder.encode(JSON.stringify(Object.assign({}, reply, { isDisposed: true, id: packet.id })));
    } catch (e) {
      this.log.warn(`reply on ${channel} not sent: ${(e as Error).message}`);
      body = failure(`The reply of ${channel} could not be sent: ${(e as Error).message}`);
    }
    this.reply(channel, message, body);
  }

  /** A request's body, taken from the store when large; null when it could not be (the caller has been told). */
  private async read(channel: string, message: Msg): Promise<Uint8Array | null> {
    try {
      return await this.largeMessages().incoming(message);
    } catch (e) {
      this.unreadable(channel, message, e);
      return null;
    }
  }

  private unreadable(channel: string, message: Msg, e: unknown): void {
    this.log.warn(`request on ${channel} not read: ${(e as Error).message}`);
    if (message.reply) message.respond(failure(`The request to ${channel} could not be read: ${(e as Error).message}`));
  }

  /** Sends a reply, through the store when large. */
  private reply(channel: string, message: Msg, body: Uint8Array, opts?: PublishOptions): void {
    const headers: MsgHdrs = opts?.headers ?? natsHeaders();
    this.largeMessages()
      .outgoing(body, headers)
      .then((data) => message.respond(data, { ...opts, headers }))
      .catch((e: Error) => {
        this.log.warn(`reply on ${channel} not sent: ${e.message}`);
        message.respond(failure(`The reply of ${channel} could not be sent: ${e.message}`));
      });
  }

  private largeMessages(): LargeMessages {
    const nc = (this as unknown as { natsClient: NatsConnection }).natsClient;
    return (this.large ??= new LargeMessages(nc, this.prefix));
  }

  /**
   * The handler of a subject, found by the subject itself: the framework's own lookup first tries the subject as JSON
   * (our subjects are plain strings, so that throws a SyntaxError, stack and all, and catches it on every message);
   * patterns of other shapes still go through it.
   */
  override getHandlerByPattern(pattern: string): ReturnType<ServerNats['getHandlerByPattern']> {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  /** ServerNats#bindEvents, with the subject put in the namespace. */
  override bindEvents(client: { subscribe(subject: string, opts: { queue?: string; callback: unknown }): unknown }): void {
    const subscriptions = (this as unknown as { subscriptions: unknown[] }).subscriptions;
    for (const [channel, handler] of this.messageHandlers) {
      subscriptions.push(
        client.subscribe(natsSubject({ subjectPrefix: this.prefix }, channel), {
          queue: (handler.extras?.queue as string | undefined) ?? this.queue,
          callback: this.handlers?.has(channel)
            ? (err: NatsError | null, message: Msg) => {
                // A reply that cannot be sent at all (the connection closed meanwhile) leaves the caller to its deadline.
                if (!err) this.answer(channel, message).catch((e: Error) => this.log.warn(`request on ${channel} not answered: ${e.message}`));
              }
            : this.getMessageHandler(channel).bind(this),
        }),
      );
    }
  }
}

/** A reply in the framework's wire format saying the service is unavailable. */
function failure(message: string): Uint8Array {
  return encoder.encode(JSON.stringify({ err: { code: ErrorCode.Unavailable, message }, isDisposed: true }));
}

/**
 * Server side of the bus for one service: a queue group per service so replicas share the work. The requests of
 * `handlers` skip the framework's RPC pipeline.
 */
export function microserviceOptions(bus: BusOptions, service: string, handlers?: BusHandlers): MicroserviceOptions {
  if (bus.kind === 'in-process') return { strategy: new InProcessServer(handlers) };
  return {
    strategy: new NamespacedNatsServer(
      {
        servers: [bus.url],
        queue: service,
        name: `${service}-server`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        waitOnFirstConnect: true,
      },
      bus.subjectPrefix ?? '',
      handlers,
    ),
  };
}
