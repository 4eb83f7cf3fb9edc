import { ServiceDatabase } from '@askdata/common';
import { IdempotencyKeyEntity } from './idempotency/idempotency-key.entity';
import { MIGRATIONS } from './migrations';
import { ApiKeyEntity, ProjectEntity } from './projects/project.entity';

export const gatewayDatabase: ServiceDatabase = {
  schema: 'gateway',
  entities: [ProjectEntity, ApiKeyEntity, IdempotencyKeyEntity],
  migrations: MIGRATIONS,
};
