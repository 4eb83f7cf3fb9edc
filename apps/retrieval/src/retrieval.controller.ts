import { Controller, Optional } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusRequest, HealthReport, Out, Subjects } from '@askdata/contracts';
import { databaseHealth } from '@askdata/common';
import { DataSource } from 'typeorm';
import { QdrantConnection } from './index/qdrant-connection';
import { RetrievalService } from './retrieval.service';

const S = Subjects.retrieval;

@Controller()
export class RetrievalController {
  constructor(
    private readonly retrieval: RetrievalService,
    private readonly ds: DataSource,
    @Optional() private readonly qdrant?: QdrantConnection,
  ) {}

  @MessagePattern(S.chunksReplace)
  replace(@Payload() req: BusRequest<typeof S.chunksReplace>): Out<typeof S.chunksReplace> {
    return this.retrieval.replace(req);
  }

  @MessagePattern(S.search)
  search(@Payload() req: BusRequest<typeof S.search>): Out<typeof S.search> {
    return this.retrieval.search(req);
  }

  /** The database, and Qdrant when the index is there. */
  @MessagePattern(S.health)
  health(): Promise<HealthReport> {
    const qdrant = this.qdrant;
    return databaseHealth('retrieval', this.ds, qdrant ? [{ name: 'qdrant', check: () => qdrant.ping() }] : []);
  }
}
