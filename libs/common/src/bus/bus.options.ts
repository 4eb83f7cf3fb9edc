import { MicroserviceOptions, ServerNats } from '@nestjs/microservices';
import { InProcessServer } from './in-process.transport';

export type BusOptions =
  | { kind: 'in-process'; timeoutMs: number }
  | { kind: 'nats'; url: string; timeoutMs: number; subjectPrefix?: string };

/** The NATS subject of a bus subject: in the deployment's namespace when it has one. */
export function natsSubject(bus: { subjectPrefix?: string }, subject: string): string {
  return bus.subjectPrefix ? `${bus.subjectPrefix}.${subject}` : subject;
}

/**
 * Nest's NATS server, listening on the subjects of the deployment's namespace (`<prefix>.<subject>`). Handlers are
 * still found by the subject alone, so the same controllers serve every namespace.
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly queue: string;

  constructor(
    options: ConstructorParameters<typeof ServerNats>[0] & { queue: string },
    private readonly prefix: string,
  ) {
    super(options);
    this.queue = options.queue;
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
