import { Controller, Optional } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { HealthReport, In, Out, Subjects } from '@askdata/contracts';
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
  replace(@Payload() req: In<typeof S.chunksReplace>): Out<typeof S.chunksReplace> {
    return this.retrieval.replace(req);
  }

  @MessagePattern(S.search)
  search(@Payload() req: In<typeof S.search>): Out<typeof S.search> {
    return this.retrieval.search(req);
  }

  /** The database, and Qdrant when the index is there. */
  @MessagePattern(S.health)
  async health(): Promise<HealthReport> {
    const report = await databaseHealth('retrieval', this.ds);
    if (!this.qdrant) return report;
    const qdrant = await this.qdrant.ping().then(
      () => ({ status: 'up' as const }),
      (e: Error) => ({ status: 'down' as const, message: e.message }),
    );
    return { ...report, status: qdrant.status === 'up' ? report.status : 'error', details: { ...report.details, qdrant } };
  }
}
