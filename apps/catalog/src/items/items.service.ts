import { Injectable } from '@nestjs/common';
import { BusRequest, BusResponse, ItemRecord, isUuid, Paged, Scope, Subjects } from '@askdata/contracts';
import { isoMicro, ServiceError, uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { CollectionsService } from '../collections/collections.service';
import { inferFields } from '../collections/fields';
import { ItemEntity, ItemUpsertEntity } from './item.entity';

const UPSERTS_SHOWN = 20;

@Injectable()
export class ItemsService {
  constructor(
    private readonly ds: DataSource,
    private readonly collections: CollectionsService,
  ) {}

  async list(req: BusRequest<typeof Subjects.catalog.itemsList>): Promise<Paged<ItemRecord>> {
    const qb = this.ds
      .getRepository(ItemEntity)
      .createQueryBuilder('i')
      .where('i.project_id = :project', { project: req.scope.projectId });
    if (req.collection) {
      qb.innerJoin('collections', 'c', 'c.id = i.collection_id AND c.project_id = i.project_id').andWhere('c.slug = :slug', {
        slug: req.collection,
      });
    }
    if (req.tenant !== null) qb.andWhere('i.tenant = :tenant', { tenant: req.tenant });
    if (req.itemId !== null) qb.andWhere('i.item_id = :itemId', { itemId: req.itemId });
    const [rows, total] = await qb
      .orderBy('i.id', 'DESC')
      .skip((req.page - 1) * req.perPage)
      .take(req.perPage)
      .getManyAndCount();
    return { data: await this.toRecords(req.scope, rows), total };
  }

  async get(scope: Scope, id: string): Promise<ItemRecord> {
    const row = isUuid(id) ? await this.ds.getRepository(ItemEntity).findOneBy({ id, projectId: scope.projectId }) : null;
    if (!row) throw ServiceError.notFound('Item');
    const [record] = await this.toRecords(scope, [row]);
    return record;
  }

  /**
   * Creates or updates the batch's collection and items in one transaction. Idempotent: running the same batch
   * again leaves the same rows, the same service-side ids and the same counts.
   */
  async applyBatch(
    req: BusRequest<typeof Subjects.catalog.batchApply>,
  ): Promise<BusResponse<typeof Subjects.catalog.batchApply>> {
    const { scope, upsertId } = req;
    const input = req.collection ?? { slug: 'default' };
    // Last occurrence of an item id in a batch wins, as if the items had been sent one after another.
    const items = [...new Map(req.items.map((i) => [i.id, i])).values()];
    const now = new Date();
    return this.ds.transaction(async (tx) => {
      const [collection] = (await tx.query(
        `INSERT INTO catalog.collections (id, project_id, slug, name, source, declared_fields, inferred_fields, items_count, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, '{}'::jsonb, 0, $7, $7)
         ON CONFLICT (project_id, slug) DO UPDATE SET
           name = COALESCE($8, catalog.collections.name),
           source = COALESCE($9, catalog.collections.source),
           declared_fields = catalog.collections.declared_fields || $6::jsonb,
           updated_at = $7
         RETURNING id, slug`,
        [
          uuidv7(), scope.projectId, input.slug, input.name ?? input.slug, input.source ?? 'api',
          JSON.stringify(input.metadata ?? {}), now, input.name ?? null, input.source ?? null,
        ],
      )) as Array<{ id: string; slug: string }>;

      const rows = (await tx.query(
        `INSERT INTO catalog.items (id, project_id, collection_id, item_id, tenant, url, data, metadata, created_at, updated_at)
         SELECT x.id, $1, $2, x.item_id, x.tenant, x.url, x.data, x.metadata, $3, $3
         FROM jsonb_to_recordset($4::jsonb) AS x(id uuid, item_id text, tenant int, url text, data jsonb, metadata jsonb)
         ON CONFLICT (project_id, collection_id, item_id) DO UPDATE SET
           tenant = EXCLUDED.tenant, url = EXCLUDED.url, data = EXCLUDED.data, metadata = EXCLUDED.metadata,
           updated_at = EXCLUDED.updated_at
         RETURNING id, item_id, (xmax = 0) AS inserted`,
        [
          scope.projectId, collection.id, now,
          JSON.stringify(items.map((i) => ({ id: uuidv7(), item_id: i.id, tenant: i.tenant, url: i.url, data: i.data, metadata: i.metadata }))),
        ],
      )) as Array<{ id: string; item_id: string; inserted: boolean }>;

      await tx.query(
        `INSERT INTO catalog.item_upserts (item_id, upsert_id, project_id, created_at)
         SELECT unnest($1::uuid[]), $2, $3, $4 ON CONFLICT DO NOTHING`,
        [rows.map((r) => r.id), upsertId, scope.projectId, now],
      );
      const inserted = rows.filter((r) => r.inserted).length;
      await tx.query(
        `UPDATE catalog.collections SET items_count = items_count + $2, inferred_fields = $3::jsonb || inferred_fields WHERE id = $1`,
        [collection.id, inserted, JSON.stringify(inferFields(items.map((i) => i.metadata)))],
      );
      return { collection, items: rows.map((r) => ({ id: r.id, item_id: r.item_id })) };
    });
  }

  private async toRecords(scope: Scope, rows: ItemEntity[]): Promise<ItemRecord[]> {
    if (rows.length === 0) return [];
    const [collections, links] = await Promise.all([
      this.collections.byIds(scope, [...new Set(rows.map((r) => r.collectionId))]),
      this.ds.query(
        `SELECT item_id, upsert_id FROM (
           SELECT item_id, upsert_id, row_number() OVER (PARTITION BY item_id ORDER BY created_at DESC, upsert_id DESC) AS n
           FROM catalog.item_upserts WHERE item_id = ANY($1::uuid[])
         ) l WHERE n <= $2 ORDER BY item_id, n`,
        [rows.map((r) => r.id), UPSERTS_SHOWN],
      ) as Promise<Array<{ item_id: string; upsert_id: string }>>,
    ]);
    const upsertIds = new Map<string, string[]>();
    for (const l of links) upsertIds.set(l.item_id, [...(upsertIds.get(l.item_id) ?? []), l.upsert_id]);
    return rows.map((r) => {
      const collection = collections.get(r.collectionId);
      if (!collection) throw new Error(`item ${r.id} references a missing collection`);
      return {
        id: r.id,
        item_id: r.itemId,
        tenant: r.tenant,
        url: r.url,
        created_at: isoMicro(r.createdAt),
        updated_at: isoMicro(r.updatedAt),
        data: r.data,
        metadata: r.metadata,
        collection,
        upsert_ids: upsertIds.get(r.id) ?? [],
      };
    });
  }
}
