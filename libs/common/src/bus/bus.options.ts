import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { InProcessServer } from './in-process.transport';

export type BusOptions =
  | { kind: 'in-process'; timeoutMs: number }
  | { kind: 'nats'; url: string; timeoutMs: number };

/** Server side of the bus for one service: a queue group per service so replicas share the work. */
export function microserviceOptions(bus: BusOptions, service: string): MicroserviceOptions {
  if (bus.kind === 'in-process') return { strategy: new InProcessServer() };
  return {
    transport: Transport.NATS,
    options: {
      servers: [bus.url],
      queue: service,
      name: `${service}-server`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: true,
    },
  };
}
