import { ServiceDatabase, WebhookOutboxEntity } from '@askdata/common';
import { MIGRATIONS } from './migrations';
import { UpsertBatchEntity, UpsertEntity } from './upserts/upsert.entity';

export const ingestionDatabase: ServiceDatabase = {
  schema: 'ingestion',
  entities: [UpsertEntity, UpsertBatchEntity, WebhookOutboxEntity],
  migrations: MIGRATIONS,
};
