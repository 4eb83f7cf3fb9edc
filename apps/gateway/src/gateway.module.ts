import { DynamicModule, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { BusModule, DatabaseModule, OpsModule, ServiceRuntime } from '@askdata/common';
import { AdminController } from './admin/admin.controller';
import { AdminGuard } from './admin/admin.guard';
import { AuditLog } from './audit/audit.service';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthFailures } from './auth/auth-failures';
import { KeyUsage } from './auth/key-usage';
import { PublishableKeys } from './auth/publishable-keys';
import { UnknownKeys } from './auth/unknown-keys';
import { RateLimiter } from './auth/rate-limiter';
import { KEY_CHANGES_URL, VerifiedKeys } from './auth/verified-keys';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway.config';
import { gatewayDatabase } from './gateway.database';
import { ADMIN_TOKEN } from './gateway.tokens';
import { HealthController } from './health/health.controller';
import { AdminPort } from './http/admin-port';
import { StrayInputInterceptor } from './http/stray-input.interceptor';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { ProjectsService } from './projects/projects.service';
import { SessionChats } from './sessions/session-chats';
import { SessionTokens } from './sessions/session-tokens';
import { SessionsController } from './sessions/sessions.controller';
import { AnswerStreams } from './v1/answer-streams';
import { ChatsController } from './v1/chats.controller';
import { CollectionsController } from './v1/collections.controller';
import { DeletesController } from './v1/deletes.controller';
import { ItemsController } from './v1/items.controller';
import { ListCache } from './v1/list-cache';
import { QuestionsController } from './v1/questions.controller';
import { Rules } from './v1/rules';
import { UpsertsController } from './v1/upserts.controller';
import { UpsertViews } from './v1/upsert-views';
import { DeliveryQueue } from './webhooks/delivery-queue';
import { WebhookRelay } from './webhooks/webhook-relay';
import { WebhookSender } from './webhooks/webhook-sender';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksService } from './webhooks/webhooks.service';

export interface GatewayRuntime extends ServiceRuntime<GatewayConfig> {
  adminToken: string;
}

@Module({})
export class GatewayModule {
  static forRoot(runtime: GatewayRuntime): DynamicModule {
    return {
      module: GatewayModule,
      imports: [DatabaseModule.forService(gatewayDatabase, runtime.database), BusModule.forRoot(runtime.bus, 'gateway'), OpsModule.forApp()],
      controllers: [
        UpsertsController,
        ItemsController,
        CollectionsController,
        QuestionsController,
        ChatsController,
        DeletesController,
        SessionsController,
        AdminController,
        WebhooksController,
        HealthController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: runtime.config },
        { provide: ADMIN_TOKEN, useValue: runtime.adminToken },
        // Several gateways can run only in distributed mode; standalone has one, which needs no announcements.
        { provide: KEY_CHANGES_URL, useValue: runtime.bus.kind === 'nats' ? runtime.database.url : null },
        VerifiedKeys,
        UnknownKeys,
        AuthFailures,
        ProjectsService,
        AuditLog,
        RateLimiter,
        ApiKeyGuard,
        PublishableKeys,
        KeyUsage,
        SessionChats,
        // Every gateway of a deployment signs and verifies with the same secret: SESSION_SECRET, else the admin token.
        { provide: SessionTokens, useValue: new SessionTokens(runtime.config.SESSION_SECRET ?? runtime.adminToken) },
        AdminGuard,
        Rules,
        AnswerStreams,
        UpsertViews,
        ListCache,
        AdminPort,
        IdempotencyStore,
        WebhooksService,
        DeliveryQueue,
        WebhookSender,
        WebhookRelay,
        { provide: APP_INTERCEPTOR, useClass: StrayInputInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
    };
  }
}
