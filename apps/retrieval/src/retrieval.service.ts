import { Inject, Injectable } from '@nestjs/common';
import { In as Req, RetrievedChunk, Subjects } from '@askdata/contracts';
import { BusClient, ServiceError } from '@askdata/common';
import { checkFilter } from './index/filters';
import { SEARCH_INDEX, SearchIndex } from './index/search-index';

const S = Subjects.retrieval;

@Injectable()
export class RetrievalService {
  constructor(
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    private readonly bus: BusClient,
  ) {}

  async replace(req: Req<typeof S.chunksReplace>): Promise<{ chunks: number }> {
    return { chunks: await this.index.replace(req.scope, req.items) };
  }

  /**
   * Search within the caller's scope: in a multi-tenant project the tenant is mandatory and part of the index
   * query; named collections must exist; the metadata filter must name known fields with values of their type.
   */
  async search(req: Req<typeof S.search>): Promise<RetrievedChunk[]> {
    const multi = req.scope.tenancy === 'multi';
    if (multi && req.tenant === null) {
      throw ServiceError.invalidField('tenant', 'The tenant field is required when the project is multi-tenant.');
    }
    const needsCollections = req.collections !== null || req.filter !== null;
    const resolved = needsCollections
      ? await this.bus.request(Subjects.catalog.collectionsResolve, { scope: req.scope, slugs: req.collections, path: 'collections' })
      : [];
    const filters = req.filter ? checkFilter(req.filter, resolved) : [];
    return this.index.search({
      scope: req.scope,
      text: req.text,
      collections: req.collections,
      tenant: multi ? req.tenant : null,
      filters,
      limit: Math.max(1, Math.min(req.limit, 100)),
    });
  }
}
