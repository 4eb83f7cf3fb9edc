import { Inject, Injectable } from '@nestjs/common';
import { Bounds, BusRequest as Req, RetrievedChunk, Subjects, tenantMissing, tenantRequired } from '@askdata/contracts';
import { BusClient, detectLanguage, QUESTION_LETTERS, ServiceError } from '@askdata/common';
import { checkFilter } from './index/filters';
import { ProjectLanguages } from './index/project-languages';
import { SEARCH_INDEX, SearchIndex } from './index/search-index';

const S = Subjects.retrieval;

@Injectable()
export class RetrievalService {
  constructor(
    @Inject(SEARCH_INDEX) private readonly index: SearchIndex,
    private readonly bus: BusClient,
    private readonly languages: ProjectLanguages,
  ) {}

  async replace(req: Req<typeof S.chunksReplace>): Promise<{ chunks: number }> {
    await this.languages.record(req.scope.projectId, req.items);
    return { chunks: await this.index.replace(req.scope, req.items) };
  }

  /**
   * Search within the caller's scope: in a multi-tenant project the tenant is mandatory and part of the index
   * query; named collections must exist; the metadata filter must name known fields with values of their type.
   * The question is analyzed in its own language (given or detected) and in the project's main languages.
   */
  async search(req: Req<typeof S.search>): Promise<RetrievedChunk[]> {
    const multi = req.scope.tenancy === 'multi';
    if (tenantMissing(req.scope, req.tenant)) {
      throw ServiceError.invalidField('tenant', tenantRequired());
    }
    const needsCollections = req.collections !== null || req.filter !== null;
    const resolved = needsCollections
      ? await this.bus.request(Subjects.catalog.collectionsResolve, { scope: req.scope, slugs: req.collections, path: 'collections' })
      : [];
    const filters = req.filter ? checkFilter(req.filter, resolved) : [];
    const asked = req.language ?? (await detectLanguage(req.text, QUESTION_LETTERS));
    const languages = await this.languages.forQuestion(req.scope.projectId, asked, Boolean(req.language));
    return this.index.search({
      scope: req.scope,
      text: req.text,
      collections: req.collections,
      tenant: multi ? req.tenant : null,
      filters,
      limit: Math.max(1, Math.min(req.limit, Bounds.searchLimitMax)),
      languages,
    });
  }
}
