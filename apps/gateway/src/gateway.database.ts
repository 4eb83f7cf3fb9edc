import { ServiceDatabase } from '@askdata/common';
import { AuditEntryEntity } from './audit/audit-entry.entity';
import { IdempotencyKeyEntity } from './idempotency/idempotency-key.entity';
import { MIGRATIONS } from './migrations';
import { ApiKeyEntity, ProjectEntity } from './projects/project.entity';
import { SessionChatEntity } from './sessions/session-chat.entity';
import { WebhookDeliveryEntity, WebhookEndpointEntity, WebhookRelayEntity } from './webhooks/webhook.entity';

export const gatewayDatabase: ServiceDatabase = {
  schema: 'gateway',
  entities: [ProjectEntity, ApiKeyEntity, AuditEntryEntity, IdempotencyKeyEntity, SessionChatEntity, WebhookEndpointEntity, WebhookDeliveryEntity, WebhookRelayEntity],
  migrations: MIGRATIONS,
};
