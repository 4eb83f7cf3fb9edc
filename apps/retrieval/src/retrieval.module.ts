import { DynamicModule, Module } from '@nestjs/common';
import { BusModule, DatabaseModule, OpsModule, ServiceRuntime } from '@askdata/common';
import { PostgresIndex } from './index/postgres-index';
import { SEARCH_INDEX } from './index/search-index';
import { RETRIEVAL_CONFIG, RetrievalConfig } from './retrieval.config';
import { RetrievalController } from './retrieval.controller';
import { retrievalDatabase } from './retrieval.database';
import { RetrievalService } from './retrieval.service';

@Module({})
export class RetrievalModule {
  static forRoot(runtime: ServiceRuntime<RetrievalConfig>): DynamicModule {
    return {
      module: RetrievalModule,
      imports: [
        DatabaseModule.forService(retrievalDatabase, runtime.database),
        BusModule.forRoot(runtime.bus, 'retrieval'),
        OpsModule.forApp(),
      ],
      controllers: [RetrievalController],
      providers: [
        { provide: RETRIEVAL_CONFIG, useValue: runtime.config },
        PostgresIndex,
        { provide: SEARCH_INDEX, useExisting: PostgresIndex },
        RetrievalService,
      ],
    };
  }
}
