import { ServiceDatabase } from '@askdata/common';
import { ChunkEntity, IndexChangeEntity, PostingBlockEntity, StatsEntity } from './index/index.entities';
import { BuildWriteEntity, ProjectIndexEntity } from './index/index-rebuild.entities';
import { ProjectLanguageEntity } from './index/project-languages';
import { MIGRATIONS } from './migrations';

export const retrievalDatabase: ServiceDatabase = {
  schema: 'retrieval',
  entities: [ChunkEntity, PostingBlockEntity, StatsEntity, IndexChangeEntity, ProjectLanguageEntity, ProjectIndexEntity, BuildWriteEntity],
  migrations: MIGRATIONS,
};
