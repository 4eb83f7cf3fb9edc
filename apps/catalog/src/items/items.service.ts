import { Injectable } from '@nestjs/common';
import {
  Bounds,
  BusRequest,
  BusResponse,
  CatalogItemInput,
  CollectionView,
  fieldLimitErrors,
  ItemRecord,
  isUuid,
  Paged,
  Scope,
  Subjects,
  upsertFieldSources,
} from '@askdata/contracts';
import { announceListChange, BusClient, isoMicro, packJson, preparedRows, ServiceError, TimeSlices, unpackJson, uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { FieldMap } from '../collections/collection.entity';
import { fieldNames, inferFields, mergeFields } from '../collections/fields';

/** Item.upserts lists the newest upserts that touched the item, at most this many (an item may be upserted daily for years). */
const UPSERTS_SHOWN = Bounds.itemUpserts;

@Injectable()
export class ItemsService {
  constructor(
    private readonly ds: DataSource,
    private readonly bus: BusClient,
  ) {}

  /**
   * A page of items and the total in one statement. The total comes from the collections' `items_count` (kept in
   * the same transaction as the items) unless the list is filtered by tenant or item id, so it does not grow with
   * the project. The page's ids are found first (along the `(project_id, id)` index), and only those rows are read
   * whole: the rows an OFFSET skips cost an index entry each, not a row with its upserts.
   */
  async list(req: BusRequest<typeof Subjects.catalog.itemsList>): Promise<Paged<ItemRecord>> {
    const params: unknown[] = [req.scope.projectId];
    const param = (value: unknown) => `$${params.push(value)}`;
    const collection = req.collection ? param(req.collection) : null;
    const conditions = ['i.project_id = $1'];
    if (collection) conditions.push(`c.slug = ${collection}`);
    if (req.tenant !== null) conditions.push(`i.tenant = ${param(req.tenant)}`);
    if (req.itemId !== null) conditions.push(`i.item_id = ${param(req.itemId)}`);
    const where = conditions.join(' AND ');
    const total =
      req.tenant === null && req.itemId === null
        ? `SELECT COALESCE(sum(items_count), 0)::int FROM catalog.collections c WHERE c.project_id = $1${collection ? ` AND c.slug = ${collection}` : ''}`
        : `SELECT count(*)::int FROM catalog.items i JOIN catalog.collections c ON c.id = i.collection_id WHERE ${where}`;
    const pageIds =
      `SELECT i.id FROM catalog.items i${collection ? ' JOIN catalog.collections c ON c.id = i.collection_id' : ''} WHERE ${where}` +
      ` ORDER BY i.id DESC LIMIT ${param(req.perPage)} OFFSET ${param((req.page - 1) * req.perPage)}`;
    const rows = await preparedRows<ItemRow & { total: number }>(
      this.ds,
      `SELECT t.total, p.* FROM (${total}) AS t(total)
       LEFT JOIN LATERAL (${ITEM_ROWS} JOIN (${pageIds}) pg ON pg.id = i.id WHERE i.project_id = $1 ORDER BY i.id DESC) p ON true`,
      params,
    );
    return { data: toRecords(rows.filter((r) => r.id !== null)), total: rows[0]?.total ?? 0 };
  }

  async get(scope: Scope, id: string): Promise<ItemRecord> {
    const rows = isUuid(id) ? await preparedRows<ItemRow>(this.ds, `${ITEM_ROWS} WHERE i.id = $1 AND i.project_id = $2`, [id, scope.projectId]) : [];
    if (rows.length === 0) throw ServiceError.notFound('Item');
    return toRecords(rows)[0];
  }

  /**
   * Creates or updates the batch's collection and items in one transaction. Idempotent: running the same batch
   * again leaves the same rows, the same service-side ids and the same counts. Once committed, every gateway is
   * told that the project's lists changed, before this answers; if that cannot be said, the caller is answered
   * UNAVAILABLE and applies the batch again.
   */
  async applyBatch(req: BusRequest<typeof Subjects.catalog.batchApply>): Promise<BusResponse<typeof Subjects.catalog.batchApply>> {
    const applied = await this.apply(req);
    await announceListChange(this.bus, req.scope.projectId, { applied: [req.upsertId] });
    return applied;
  }

  private async apply(req: BusRequest<typeof Subjects.catalog.batchApply>): Promise<BusResponse<typeof Subjects.catalog.batchApply>> {
    const { scope, upsertId } = req;
    const input = req.collection ?? { slug: 'default' };
    // Last occurrence of an item id in a batch wins, as if the items had been sent one after another.
    const items = [...new Map(req.items.map((i) => [i.id, i])).values()];
    const packed = await packAll(items);
    const now = new Date();
    return this.ds.transaction(async (tx) => {
      // The gateway checked the fields when it accepted the upsert; upserts accepted side by side may still add up.
      const [current] = await tx.query<Array<{ declared_fields: FieldMap; inferred_fields: FieldMap }>>(
        'SELECT declared_fields, inferred_fields FROM catalog.collections WHERE project_id = $1 AND slug = $2 FOR UPDATE',
        [scope.projectId, input.slug],
      );
      const beyond = fieldLimitErrors(
        current ? fieldNames(current.declared_fields, current.inferred_fields) : new Set(),
        upsertFieldSources(
          input.metadata,
          items.map((i) => i.metadata),
        ),
      );
      if (beyond) throw ServiceError.validation(beyond);
      const [collection] = await tx.query<Array<{ id: string; slug: string; language: string | null }>>(
        `INSERT INTO catalog.collections (id, project_id, slug, name, source, declared_fields, inferred_fields, items_count, language, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, '{}'::jsonb, 0, $10, $7, $7)
         ON CONFLICT (project_id, slug) DO UPDATE SET
           name = COALESCE($8, catalog.collections.name),
           source = COALESCE($9, catalog.collections.source),
           declared_fields = catalog.collections.declared_fields || $6::jsonb,
           language = COALESCE($10, catalog.collections.language),
           updated_at = $7
         RETURNING id, slug, language`,
        [
          uuidv7(),
          scope.projectId,
          input.slug,
          input.name ?? input.slug,
          input.source ?? 'api',
          JSON.stringify(input.metadata ?? {}),
          now,
          input.name ?? null,
          input.source ?? null,
          input.language ?? null,
        ],
      );

      const rows = await tx.query<Array<{ id: string; item_id: string; language: string | null; inserted: boolean }>>(
        `INSERT INTO catalog.items (id, project_id, collection_id, item_id, tenant, url, data, packed, metadata, language, created_at, updated_at)
         SELECT x.id, $1, $2, x.item_id, x.tenant, x.url, NULL, ($5::bytea[])[x.n], x.metadata, x.language, $3, $3
         FROM jsonb_to_recordset($4::jsonb) AS x(id uuid, item_id text, tenant int, url text, n int, metadata jsonb, language text)
         ON CONFLICT (project_id, collection_id, item_id) DO UPDATE SET
           tenant = EXCLUDED.tenant, url = EXCLUDED.url, data = NULL, packed = EXCLUDED.packed, metadata = EXCLUDED.metadata,
           language = EXCLUDED.language, updated_at = EXCLUDED.updated_at
         RETURNING id, item_id, language, (xmax = 0) AS inserted`,
        [
          scope.projectId,
          collection.id,
          now,
          JSON.stringify(
            items.map((i, n) => ({
              id: uuidv7(),
              item_id: i.id,
              tenant: i.tenant,
              url: i.url,
              // Its data's place in the array of packed data (from 1).
              n: n + 1,
              metadata: i.metadata,
              // Given with the item, else declared for the collection (in this batch or before), else detected.
              language: i.language ?? collection.language ?? i.detected_language ?? null,
            })),
          ),
          packed,
        ],
      );

      await tx.query(
        `INSERT INTO catalog.item_upserts (item_id, upsert_id, project_id, created_at)
         SELECT unnest($1::uuid[]), $2, $3, $4 ON CONFLICT DO NOTHING`,
        [rows.map((r) => r.id), upsertId, scope.projectId, now],
      );
      const inserted = rows.filter((r) => r.inserted).length;
      await tx.query(`UPDATE catalog.collections SET items_count = items_count + $2, inferred_fields = $3::jsonb || inferred_fields WHERE id = $1`, [
        collection.id,
        inserted,
        JSON.stringify(inferFields(items.map((i) => i.metadata))),
      ]);
      return { collection: { id: collection.id, slug: collection.slug }, items: rows.map((r) => ({ id: r.id, item_id: r.item_id, language: r.language })) };
    });
  }
}

/**
 * An item with its collection and the newest upserts that touched it (upsert ids are time-ordered: newest
 * accepted first), one row each; callers add WHERE etc.
 */
const ITEM_ROWS = `
  SELECT i.id, i.item_id, i.tenant, i.url, i.data, i.packed, i.metadata, i.language, i.created_at, i.updated_at,
         c.id AS c_id, c.name AS c_name, c.slug AS c_slug, c.source AS c_source, c.declared_fields AS c_declared, c.language AS c_language,
         c.inferred_fields AS c_inferred, c.created_at AS c_created_at, c.items_count AS c_items_count,
         ARRAY(SELECT u.upsert_id FROM catalog.item_upserts u WHERE u.item_id = i.id
               ORDER BY u.upsert_id DESC LIMIT ${UPSERTS_SHOWN}) AS upsert_ids
  FROM catalog.items i JOIN catalog.collections c ON c.id = i.collection_id`;

interface ItemRow {
  id: string;
  item_id: string;
  tenant: number | null;
  url: string | null;
  data: Record<string, unknown> | null;
  packed: Buffer | null;
  metadata: Record<string, unknown>;
  language: string | null;
  created_at: Date;
  updated_at: Date;
  c_id: string;
  c_name: string;
  c_slug: string;
  c_source: string;
  c_declared: FieldMap;
  c_inferred: FieldMap;
  c_language: string | null;
  c_created_at: Date;
  c_items_count: number;
  upsert_ids: string[];
}

function toRecords(rows: ItemRow[]): ItemRecord[] {
  const collections = new Map<string, CollectionView>();
  return rows.map((r) => {
    let collection = collections.get(r.c_id);
    if (!collection) {
      collection = {
        id: r.c_id,
        name: r.c_name,
        slug: r.c_slug,
        source: r.c_source,
        metadata: mergeFields(r.c_declared, r.c_inferred),
        language: r.c_language,
        created_at: isoMicro(r.c_created_at),
        items_count: r.c_items_count,
      };
      collections.set(r.c_id, collection);
    }
    return {
      id: r.id,
      item_id: r.item_id,
      tenant: r.tenant,
      url: r.url,
      created_at: isoMicro(r.created_at),
      updated_at: isoMicro(r.updated_at),
      data: r.data ?? unpackJson<Record<string, unknown>>(r.packed!),
      metadata: r.metadata,
      language: r.language,
      collection,
      upsert_ids: r.upsert_ids,
    };
  });
}

/**
 * The items' data packed for storage (`packJson`): as ingestion packed it, else packed here, outside the transaction;
 * the loop yields to the event loop now and then.
 */
async function packAll(items: CatalogItemInput[]): Promise<Buffer[]> {
  const slices = new TimeSlices();
  const out: Buffer[] = [];
  for (const i of items) {
    if (i.packed !== undefined) {
      out.push(Buffer.from(i.packed, 'base64'));
      continue;
    }
    if (slices.due()) await slices.next();
    out.push(packJson(i.data));
  }
  return out;
}
