import { Controller, DynamicModule, Inject, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { BusRequest, BusResponse, Subjects } from '@askdata/contracts';
import { DataSource } from 'typeorm';
import { WebhookOutbox } from './outbox';

type Source = typeof Subjects.ingestion | typeof Subjects.conversation;

/**
 * A service's webhook outbox: the `WebhookOutbox` of its schema, and the two bus handlers through which the gateway
 * reads the oldest events and acknowledges those it stored.
 */
@Module({})
export class WebhookOutboxModule {
  static forService<S extends Source>(schema: string, subjects: S): DynamicModule {
    @Controller()
    class WebhookOutboxController {
      constructor(@Inject(WebhookOutbox) private readonly outbox: WebhookOutbox) {}

      @MessagePattern(subjects.outboxRead)
      async read(@Payload() req: BusRequest<S['outboxRead']>): Promise<BusResponse<S['outboxRead']>> {
        return { events: await this.outbox.read(req.limit, req.maxBytes) };
      }

      @MessagePattern(subjects.outboxAck)
      async ack(@Payload() req: BusRequest<S['outboxAck']>): Promise<BusResponse<S['outboxAck']>> {
        return { deleted: await this.outbox.ack(req.ids) };
      }
    }
    return {
      module: WebhookOutboxModule,
      controllers: [WebhookOutboxController],
      providers: [{ provide: WebhookOutbox, useFactory: (ds: DataSource) => new WebhookOutbox(ds, schema), inject: [DataSource] }],
    };
  }
}
