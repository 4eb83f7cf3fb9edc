import { Injectable } from '@nestjs/common';
import { Bounds, BusRequest as Req, ItemChunksView, RetrievedChunk, Subjects, tenantMissing, tenantRequired } from '@askdata/contracts';
import { detectLanguage, QUESTION_LETTERS, ServiceError } from '@askdata/common';
import { CollectionsResolved } from './collections-resolved';
import { checkFilter } from './index/filters';
import { IndexRebuilds } from './index/index-rebuilds';
import { ProjectLanguages } from './index/project-languages';

type S = typeof Subjects.retrieval;

@Injectable()
export class RetrievalService {
  constructor(
    private readonly collections: CollectionsResolved,
    private readonly languages: ProjectLanguages,
    private readonly indexes: IndexRebuilds,
  ) {}

  /** Into the project's live index, and the one being built if a rebuild is under way. */
  async replace(req: Req<S['chunksReplace']>): Promise<{ chunks: number }> {
    return { chunks: await this.indexes.write(req.scope, req.items) };
  }

  /** An item's chunks in the live index (none: not indexed, or not of this project). */
  async chunks(projectId: string, itemId: string): Promise<ItemChunksView> {
    const live = await this.indexes.searchTarget(projectId);
    const [item] = await live.index.read(live.key, [itemId]);
    return { title: item?.title ?? '', language: item?.language ?? null, chunks: (item?.chunks ?? []).slice(0, Bounds.itemChunksListed) };
  }

  /**
   * Search within the caller's scope: in a multi-tenant project the tenant is mandatory and part of the index
   * query; named collections must exist; the metadata filter must name known fields with values of their type.
   * The question is analyzed in its own language (given or detected) and in the project's main languages.
   */
  async search(req: Req<S['search']>): Promise<RetrievedChunk[]> {
    const multi = req.scope.tenancy === 'multi';
    if (tenantMissing(req.scope, req.tenant)) {
      throw ServiceError.invalidField('tenant', tenantRequired());
    }
    const needsCollections = req.collections !== null || req.filter !== null;
    const resolved = needsCollections ? await this.collections.resolve(req.scope, req.collections) : [];
    const filters = req.filter ? checkFilter(req.filter, resolved) : [];
    const languages = await this.languages.forQuestion(req.scope.projectId, req.language ?? (() => detectLanguage(req.text, QUESTION_LETTERS)), Boolean(req.language));
    const live = await this.indexes.searchTarget(req.scope.projectId);
    const hits = await live.index.search({
      scope: { ...req.scope, projectId: live.key },
      text: req.text,
      collections: req.collections,
      tenant: multi ? req.tenant : null,
      filters,
      limit: Math.max(1, Math.min(req.limit, Bounds.searchLimitMax)),
      languages,
    });
    return req.texts === false ? hits.map((hit) => ({ ...hit, text: '' })) : hits;
  }
}
