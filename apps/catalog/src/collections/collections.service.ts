import { Injectable } from '@nestjs/common';
import { BusRequest, BusResponse, CollectionView, fieldLimitErrors, isUuid, Paged, Scope, Subjects } from '@askdata/contracts';
import { isoMicro, ServiceError } from '@askdata/common';
import { DataSource, In } from 'typeorm';
import { CollectionEntity } from './collection.entity';
import { fieldNames, mergeFields } from './fields';

@Injectable()
export class CollectionsService {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(CollectionEntity);
  }

  async list(req: BusRequest<typeof Subjects.catalog.collectionsList>): Promise<Paged<CollectionView>> {
    const where = { projectId: req.scope.projectId, ...(req.slug ? { slug: req.slug } : {}) };
    const [rows, total] = await this.repo.findAndCount({
      where,
      order: { id: 'DESC' },
      skip: (req.page - 1) * req.perPage,
      take: req.perPage,
    });
    return { data: rows.map(toCollectionView), total };
  }

  async get(scope: Scope, id: string): Promise<CollectionView> {
    const row = isUuid(id) ? await this.repo.findOneBy({ id, projectId: scope.projectId }) : null;
    if (!row) throw ServiceError.notFound('Collection');
    return toCollectionView(row);
  }

  async byIds(scope: Scope, ids: string[]): Promise<Map<string, CollectionView>> {
    if (ids.length === 0) return new Map();
    const rows = await this.repo.findBy({ projectId: scope.projectId, id: In(ids) });
    return new Map(rows.map((r) => [r.id, toCollectionView(r)]));
  }

  /** Whether an upsert's fields fit the collection (Bounds.collectionFields): a 422 naming the first that does not. */
  async checkFields(req: BusRequest<typeof Subjects.catalog.fieldsCheck>): Promise<BusResponse<typeof Subjects.catalog.fieldsCheck>> {
    const row = await this.repo.findOneBy({ projectId: req.scope.projectId, slug: req.slug });
    const existing = row ? fieldNames(row.declaredFields, row.inferredFields) : new Set<string>();
    const errors = fieldLimitErrors(existing, req.fields);
    if (errors) throw ServiceError.validation(errors);
    return { fields: new Set([...existing, ...req.fields.map((f) => f.name)]).size };
  }

  /** Collections named in a question (all of the project's when none are named); unknown slugs are a 422. */
  async resolve(req: BusRequest<typeof Subjects.catalog.collectionsResolve>): Promise<BusResponse<typeof Subjects.catalog.collectionsResolve>> {
    const slugs = req.slugs;
    const rows = await this.repo.find({
      where: { projectId: req.scope.projectId, ...(slugs ? { slug: In(slugs) } : {}) },
      order: { id: 'ASC' },
    });
    if (slugs) {
      const known = new Set(rows.map((r) => r.slug));
      const errors: Record<string, string[]> = {};
      slugs.forEach((s, i) => {
        if (!known.has(s)) errors[`${req.path}.${i}`] = [`The selected ${req.path}.${i} is invalid.`];
      });
      if (Object.keys(errors).length) throw ServiceError.validation(errors);
    }
    return rows.map((r) => ({ id: r.id, slug: r.slug, fields: mergeFields(r.declaredFields, r.inferredFields) }));
  }
}

export function toCollectionView(row: CollectionEntity): CollectionView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    source: row.source,
    metadata: mergeFields(row.declaredFields, row.inferredFields),
    language: row.language,
    created_at: isoMicro(row.createdAt),
    items_count: row.itemsCount,
  };
}
