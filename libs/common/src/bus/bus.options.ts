import { Logger } from '@nestjs/common';
import { MicroserviceOptions, ServerNats } from '@nestjs/microservices';
import { ErrorCode } from '@askdata/contracts';
import { headers as natsHeaders, Msg, MsgHdrs, NatsConnection, PublishOptions } from 'nats';
import { InProcessServer } from './in-process.transport';
import { LargeMessages } from './large-messages';

export type BusOptions = { kind: 'in-process'; timeoutMs: number } | { kind: 'nats'; url: string; timeoutMs: number; subjectPrefix?: string };

/** The NATS subject of a bus subject: in the deployment's namespace when it has one. */
export function natsSubject(bus: { subjectPrefix?: string }, subject: string): string {
  return bus.subjectPrefix ? `${bus.subjectPrefix}.${subject}` : subject;
}

/**
 * Nest's NATS server, listening on the subjects of the deployment's namespace (`<prefix>.<subject>`). Handlers are
 * still found by the subject alone, so the same controllers serve every namespace. Requests and replies larger than
 * the server carries travel through the object store ({@link LargeMessages}).
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly queue: string;
  private readonly log = new Logger('Bus');
  private large: LargeMessages | undefined;

  constructor(
    options: ConstructorParameters<typeof ServerNats>[0] & { queue: string },
    private readonly prefix: string,
  ) {
    super(options);
    this.queue = options.queue;
  }

  /** ServerNats#handleMessage, with the request's body and the reply's taken from and put in the store if large. */
  override async handleMessage(channel: string, message: Msg): Promise<unknown> {
    const nc = (this as unknown as { natsClient: NatsConnection }).natsClient;
    const large = (this.large ??= new LargeMessages(nc, this.prefix));
    const reply = (body: Uint8Array, opts?: PublishOptions): void => {
      const headers: MsgHdrs = opts?.headers ?? natsHeaders();
      large
        .outgoing(body, headers)
        .then((data) => message.respond(data, { ...opts, headers }))
        .catch((e: Error) => {
          this.log.warn(`reply on ${channel} not sent: ${e.message}`);
          message.respond(failure(`The reply of ${channel} could not be sent: ${e.message}`));
        });
    };
    let data: Uint8Array;
    try {
      data = await large.incoming(message);
    } catch (e) {
      this.log.warn(`request on ${channel} not read: ${(e as Error).message}`);
      if (message.reply) message.respond(failure(`The request to ${channel} could not be read: ${(e as Error).message}`));
      return;
    }
    const received = Object.create(message, {
      data: { value: data },
      respond: { value: (body?: Uint8Array, opts?: PublishOptions) => (reply(body ?? new Uint8Array(0), opts), true) },
    }) as Msg;
    return super.handleMessage(channel, received);
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
          callback: this.getMessageHandler(channel).bind(this),
        }),
      );
    }
  }
}

/** A reply in the framework's wire format saying the service is unavailable. */
function failure(message: string): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ err: { code: ErrorCode.Unavailable, message }, isDisposed: true }));
}

/** Server side of the bus for one service: a queue group per service so replicas share the work. */
export function microserviceOptions(bus: BusOptions, service: string): MicroserviceOptions {
  if (bus.kind === 'in-process') return { strategy: new InProcessServer() };
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
    ),
  };
}
