import { DynamicModule, Module } from '@nestjs/common';
import { BusModule, DatabaseModule, OpsModule, ServiceRuntime, WebhookOutboxModule } from '@askdata/common';
import { Subjects } from '@askdata/contracts';
import { IngestionConfig } from './ingestion.config';
import { IngestionController } from './ingestion.controller';
import { DOORBELL, LocalDoorbell } from './infra/doorbell';
import { JetStreamDoorbell } from './infra/jetstream-doorbell';
import { ingestionDatabase } from './ingestion.database';
import { INGESTION_CONFIG } from './ingestion.tokens';
import { BatchVacuum } from './upserts/batch-vacuum';
import { AcceptedBatches } from './upserts/accepted-batches';
import { ItemAnalysis } from './pipeline/item-analysis';
import { UpsertProcessor } from './upserts/upsert-processor';
import { UpsertQueue } from './upserts/upsert-queue';
import { DeleteProcessor } from './upserts/delete-processor';
import { UpsertWorker } from './upserts/upsert-worker';
import { UpsertsService } from './upserts/upserts.service';

@Module({})
export class IngestionModule {
  static forRoot(runtime: ServiceRuntime<IngestionConfig>): DynamicModule {
    return {
      module: IngestionModule,
      imports: [
        DatabaseModule.forService(ingestionDatabase, runtime.database),
        BusModule.forRoot(runtime.bus, 'ingestion'),
        OpsModule.forApp(),
        WebhookOutboxModule.forService('ingestion', Subjects.ingestion),
      ],
      controllers: [IngestionController],
      providers: [
        { provide: INGESTION_CONFIG, useValue: runtime.config },
        {
          provide: DOORBELL,
          useFactory: () => (runtime.bus.kind === 'nats' ? new JetStreamDoorbell(runtime.bus.url, runtime.bus.subjectPrefix ?? '') : new LocalDoorbell()),
        },
        AcceptedBatches,
        BatchVacuum,
        UpsertsService,
        UpsertQueue,
        UpsertWorker,
        UpsertProcessor,
        DeleteProcessor,
        ItemAnalysis,
      ],
    };
  }
}
