import { DynamicModule, Module } from '@nestjs/common';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { BUS_OPTIONS, BUS_PROXY, BUS_SERVICE, BusClient } from './bus-client';
import { BusOptions } from './bus.options';
import { InProcessClient } from './in-process.transport';

@Module({})
export class BusModule {
  static forRoot(options: BusOptions, clientName: string): DynamicModule {
    return {
      module: BusModule,
      global: true,
      providers: [
        { provide: BUS_OPTIONS, useValue: options },
        { provide: BUS_SERVICE, useValue: clientName },
        {
          provide: BUS_PROXY,
          useFactory: () =>
            options.kind === 'in-process'
              ? new InProcessClient()
              : ClientProxyFactory.create({
                  transport: Transport.NATS,
                  options: {
                    servers: [options.url],
                    name: `${clientName}-client`,
                    maxReconnectAttempts: -1,
                    reconnectTimeWait: 500,
                    // No stack captured for every request (costly on a hot path); errors still say what failed.
                    noAsyncTraces: true,
                  },
                }),
        },
        BusClient,
      ],
      exports: [BusClient],
    };
  }
}
