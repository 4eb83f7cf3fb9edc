import { ServiceDatabase } from '@askdata/common';
import { MIGRATIONS } from './migrations';
import { ApiKeyEntity, ProjectEntity } from './projects/project.entity';

export const gatewayDatabase: ServiceDatabase = {
  schema: 'gateway',
  entities: [ProjectEntity, ApiKeyEntity],
  migrations: MIGRATIONS,
};
