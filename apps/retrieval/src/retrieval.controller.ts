import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusRequest, HealthReport, Out, ReindexView, Subjects } from '@askdata/contracts';
import { databaseHealth } from '@askdata/common';
import { DataSource } from 'typeorm';
import { IndexRebuilds } from './index/index-rebuilds';
import { QdrantConnection } from './index/qdrant-connection';
import { RETRIEVAL_CONFIG, RetrievalConfig } from './retrieval.config';
import { RetrievalService } from './retrieval.service';

const S = Subjects.retrieval;

@Controller()
export class RetrievalController {
  constructor(
    private readonly retrieval: RetrievalService,
    private readonly ds: DataSource,
    private readonly rebuilds: IndexRebuilds,
    private readonly qdrant: QdrantConnection,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
  ) {}

  @MessagePattern(S.reindexStart)
  reindexStart(@Payload() req: BusRequest<typeof S.reindexStart>): Promise<ReindexView> {
    return this.rebuilds.start(req.projectId, 'requested');
  }

  @MessagePattern(S.reindexGet)
  reindexGet(@Payload() req: BusRequest<typeof S.reindexGet>): Promise<ReindexView> {
    return this.rebuilds.status(req.projectId);
  }

  @MessagePattern(S.chunksReplace)
  replace(@Payload() req: BusRequest<typeof S.chunksReplace>): Out<typeof S.chunksReplace> {
    return this.retrieval.replace(req);
  }

  @MessagePattern(S.chunksList)
  chunks(@Payload() req: BusRequest<typeof S.chunksList>): Out<typeof S.chunksList> {
    return this.retrieval.chunks(req.projectId, req.itemId);
  }

  @MessagePattern(S.search)
  search(@Payload() req: BusRequest<typeof S.search>): Out<typeof S.search> {
    return this.retrieval.search(req);
  }

  /** The database, and Qdrant when the index is configured there. */
  @MessagePattern(S.health)
  health(): Promise<HealthReport> {
    const qdrant = this.qdrant;
    return databaseHealth('retrieval', this.ds, this.config.SEARCH_BACKEND === 'qdrant' ? [{ name: 'qdrant', check: () => qdrant.ping() }] : []);
  }
}
