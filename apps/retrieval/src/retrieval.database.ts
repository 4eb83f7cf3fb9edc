import { ServiceDatabase } from '@askdata/common';
import { ChunkEntity, PostingEntity, StatsEntity, TermEntity } from './index/index.entities';
import { MIGRATIONS } from './migrations';

export const retrievalDatabase: ServiceDatabase = {
  schema: 'retrieval',
  entities: [ChunkEntity, PostingEntity, TermEntity, StatsEntity],
  migrations: MIGRATIONS,
};
