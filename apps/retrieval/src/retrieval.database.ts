import { ServiceDatabase } from '@askdata/common';
import { ChunkEntity, IndexChangeEntity, PostingBlockEntity, StatsEntity, TermEntity } from './index/index.entities';
import { BuildWriteEntity, ProjectIndexEntity } from './index/index-rebuild.entities';
import { ProjectLanguageEntity } from './index/project-languages';
import { MIGRATIONS } from './migrations';

export const retrievalDatabase: ServiceDatabase = {
  schema: 'retrieval',
  entities: [ChunkEntity, PostingBlockEntity, TermEntity, StatsEntity, IndexChangeEntity, ProjectLanguageEntity, ProjectIndexEntity, BuildWriteEntity],
  migrations: MIGRATIONS,
};
