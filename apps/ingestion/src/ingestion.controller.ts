import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusRequest, HealthReport, Out, Subjects } from '@askdata/contracts';
import { databaseHealth } from '@askdata/common';
import { DataSource } from 'typeorm';
import { UpsertWorker } from './upserts/upsert-worker';
import { UpsertsService } from './upserts/upserts.service';

const S = Subjects.ingestion;

@Controller()
export class IngestionController {
  constructor(
    private readonly upserts: UpsertsService,
    private readonly worker: UpsertWorker,
    private readonly ds: DataSource,
  ) {}

  @MessagePattern(S.upsertsCreate)
  async create(@Payload() req: BusRequest<typeof S.upsertsCreate>): Out<typeof S.upsertsCreate> {
    const receipt = await this.upserts.create(req);
    this.worker.announce(receipt.id);
    return receipt;
  }

  @MessagePattern(S.deletesCreate)
  async createDelete(@Payload() req: BusRequest<typeof S.deletesCreate>): Out<typeof S.deletesCreate> {
    const receipt = await this.upserts.createDelete(req);
    this.worker.announce(receipt.id);
    return receipt;
  }

  @MessagePattern(S.upsertsList)
  list(@Payload() req: BusRequest<typeof S.upsertsList>): Out<typeof S.upsertsList> {
    return this.upserts.list(req);
  }

  @MessagePattern(S.upsertsGet)
  get(@Payload() req: BusRequest<typeof S.upsertsGet>): Out<typeof S.upsertsGet> {
    return this.upserts.get(req.scope, req.id);
  }

  @MessagePattern(S.upsertsLookup)
  lookup(@Payload() req: BusRequest<typeof S.upsertsLookup>): Out<typeof S.upsertsLookup> {
    return this.upserts.lookup(req.scope, req.ids);
  }

  @MessagePattern(S.upsertsRecent)
  recent(@Payload() req: BusRequest<typeof S.upsertsRecent>): Out<typeof S.upsertsRecent> {
    return this.upserts.recent(req.scope, req.limit);
  }

  @MessagePattern(S.health)
  health(): Promise<HealthReport> {
    return databaseHealth('ingestion', this.ds);
  }
}
