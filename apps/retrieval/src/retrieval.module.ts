import { DynamicModule, Module, Provider } from '@nestjs/common';
import { BusModule, DatabaseModule, OpsModule, ServiceRuntime } from '@askdata/common';
import { EMBEDDINGS } from './embeddings/embedding-provider';
import { createEmbeddingProvider } from './embeddings/embedding-factory';
import { BatchPreparer } from './index/batch-preparer';
import { IndexRebuilds, REINDEX_SHARED } from './index/index-rebuilds';
import { INDEX_VERSIONS_URL } from './index/replicas';
import { IndexVacuum } from './index/index-vacuum';
import { PostingKeyRebuild } from './index/posting-key-rebuild';
import { BlockMerges } from './index/block-merges';
import { MemoryIndexes } from './index/memory-indexes';
import { PostgresIndex } from './index/postgres-index';
import { ProjectIndexes } from './index/project-indexes';
import { ProjectLanguages } from './index/project-languages';
import { QdrantModule, QdrantReadiness } from './index/qdrant-connection';
import { QdrantIndex } from './index/qdrant-index';
import { SEARCH_INDEX } from './index/search-index';
import { checkRetrievalConfig, RETRIEVAL_CONFIG, RetrievalConfig } from './retrieval.config';
import { RetrievalController } from './retrieval.controller';
import { retrievalDatabase } from './retrieval.database';
import { RetrievalService } from './retrieval.service';
import { CollectionsResolved } from './collections-resolved';

/** The configured index backend (and its embedding provider) as the SEARCH_INDEX provider. */
export function searchIndexProviders(config: RetrievalConfig): Provider[] {
  const backend = config.SEARCH_BACKEND === 'qdrant' ? QdrantIndex : PostgresIndex;
  return [
    { provide: RETRIEVAL_CONFIG, useValue: config },
    { provide: EMBEDDINGS, useValue: createEmbeddingProvider(config) },
    PostingKeyRebuild,
    IndexVacuum,
    BlockMerges,
    ...(backend === PostgresIndex ? [BatchPreparer, MemoryIndexes] : []),
    backend,
    { provide: SEARCH_INDEX, useExisting: backend },
  ];
}

/** The other backend, which a project's index is moved from or to when SEARCH_BACKEND changes. */
function otherBackendProviders(config: RetrievalConfig): Provider[] {
  return config.SEARCH_BACKEND === 'qdrant' ? [BatchPreparer, MemoryIndexes, PostgresIndex] : [QdrantIndex];
}

@Module({})
export class RetrievalModule {
  static forRoot(runtime: ServiceRuntime<RetrievalConfig>): DynamicModule {
    const config = runtime.config;
    checkRetrievalConfig(config);
    const qdrant = config.SEARCH_BACKEND === 'qdrant';
    return {
      module: RetrievalModule,
      imports: [
        DatabaseModule.forService(retrievalDatabase, runtime.database),
        BusModule.forRoot(runtime.bus, 'retrieval'),
        // Both backends can be reached: a project's index moves from one to the other when SEARCH_BACKEND changes.
        QdrantModule.forRoot(config),
        OpsModule.forApp(qdrant ? [QdrantReadiness] : []),
      ],
      controllers: [RetrievalController],
      providers: [
        ...searchIndexProviders(config),
        ...otherBackendProviders(config),
        ProjectLanguages,
        { provide: REINDEX_SHARED, useValue: runtime.bus.kind === 'nats' },
        { provide: INDEX_VERSIONS_URL, useValue: runtime.bus.kind === 'nats' ? runtime.database.url : null },
        ProjectIndexes,
        IndexRebuilds,
        CollectionsResolved,
        RetrievalService,
      ],
    };
  }
}
