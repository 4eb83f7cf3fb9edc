import { Injectable } from '@nestjs/common';
import { BusRequest, isUuid, Out, Paged, Scope, Subjects, UpsertReceiptView, UpsertView } from '@askdata/contracts';
import { isoMicro, isUniqueViolation, jsonCopy, ServiceError, uuidv7 } from '@askdata/common';
import { DataSource, In } from 'typeorm';
import { AcceptedBatches } from './accepted-batches';
import { UpsertBatchPayload, UpsertEntity } from './upsert.entity';
import { toUpsertView } from './upsert-view';

type S = typeof Subjects.ingestion;

/** The most upserts `recent` answers with. */
const RECENT_UPSERTS = 100;

@Injectable()
export class UpsertsService {
  constructor(
    private readonly ds: DataSource,
    private readonly accepted: AcceptedBatches,
  ) {}

  /**
   * Stores the batch durably; only then is the receipt returned (and the 201 sent). With an `id` that is stored
   * already (a retry of a request whose answer was lost), nothing is stored and the receipt is the stored upsert's.
   */
  async create(req: BusRequest<S['upsertsCreate']>): Out<S['upsertsCreate']> {
    if (req.items.length === 0) throw ServiceError.invalidField('items', 'The items field must have at least 1 items.');
    const payload: UpsertBatchPayload = { tenancy: req.scope.tenancy, collection: req.collection, items: req.items };
    return this.store(req.scope, req.id, { collection: req.collection?.slug ?? 'default', itemsCount: req.items.length }, payload);
  }

  /**
   * Queues a delete among the project's upserts, stored durably like one before the receipt (and the 202): it is
   * applied after every upsert accepted before it and before every one accepted after it.
   */
  async createDelete(req: BusRequest<S['deletesCreate']>): Out<S['deletesCreate']> {
    const t = req.target;
    const collection = t.kind === 'client_item' ? t.collection : t.kind === 'collection' ? t.slug : '';
    const payload: UpsertBatchPayload = { tenancy: req.scope.tenancy, collection: null, items: [], delete: t };
    return this.store(req.scope, req.id, { collection, itemsCount: 0, kind: 'delete', target: t }, payload);
  }

  /**
   * Stores the row and its batch in one transaction (unless `id` is stored already), then keeps the batch for this
   * process's workers.
   */
  private async store(
    scope: Scope,
    id: string | undefined,
    fields: Pick<UpsertEntity, 'collection' | 'itemsCount'> & Partial<Pick<UpsertEntity, 'kind' | 'target'>>,
    payload: UpsertBatchPayload,
  ): Promise<UpsertReceiptView> {
    if (id) {
      const stored = await this.storedReceipt(scope, id);
      if (stored) return stored;
    }
    const now = new Date();
    const row: UpsertEntity = {
      id: id ?? uuidv7(),
      projectId: scope.projectId,
      status: 'queued',
      kind: 'upsert',
      target: null,
      ...fields,
      attempts: 0,
      outageAttempts: 0,
      outageSince: null,
      itemsStored: false,
      availableAt: now,
      leaseUntil: null,
      error: null,
      createdAt: now,
      startedAt: null,
      completedAt: null,
    };
    try {
      await this.ds.transaction(async (tx) => {
        await tx.insert(UpsertEntity, row);
        await tx.query('INSERT INTO ingestion.upsert_batches (upsert_id, payload) VALUES ($1, $2)', [row.id, JSON.stringify(payload)]);
      });
    } catch (e) {
      // The same request stored meanwhile by another attempt of it.
      const stored = id && isUniqueViolation(e) ? await this.storedReceipt(scope, id) : null;
      if (stored) return stored;
      throw e;
    }
    // Stored: this process's workers may take the batch from here instead of reading it back (as it would read back).
    this.accepted.keep(row.id, jsonCopy(payload));
    return { id: row.id, result: 'Queued', created_at: isoMicro(row.createdAt) };
  }

  /** The receipt of the upsert stored under `id`, or null; an id of another project is a conflict. */
  private async storedReceipt(scope: Scope, id: string): Promise<UpsertReceiptView | null> {
    const row = await this.ds.getRepository(UpsertEntity).findOneBy({ id });
    if (!row) return null;
    if (row.projectId !== scope.projectId) throw ServiceError.conflict('The upsert id is taken.');
    return { id: row.id, result: 'Queued', created_at: isoMicro(row.createdAt) };
  }

  async list(req: BusRequest<S['upsertsList']>): Promise<Paged<UpsertView>> {
    const [rows, total] = await this.ds.getRepository(UpsertEntity).findAndCount({
      where: {
        projectId: req.scope.projectId,
        ...(req.status ? { status: req.status } : {}),
        ...(req.collection ? { collection: req.collection } : {}),
      },
      order: { id: 'DESC' },
      skip: (req.page - 1) * req.perPage,
      take: req.perPage,
    });
    return { data: rows.map(toUpsertView), total };
  }

  async get(scope: Scope, id: string): Promise<UpsertView> {
    const row = isUuid(id) ? await this.ds.getRepository(UpsertEntity).findOneBy({ id, projectId: scope.projectId }) : null;
    if (!row) throw ServiceError.notFound('Upsert');
    return toUpsertView(row);
  }

  /** The project's newest upserts (at most `RECENT_UPSERTS`), newest first, whatever their status. */
  async recent(scope: Scope, limit: number): Promise<UpsertView[]> {
    const take = Math.max(0, Math.min(Math.floor(limit) || 0, RECENT_UPSERTS));
    if (take === 0) return [];
    const rows = await this.ds.getRepository(UpsertEntity).find({ where: { projectId: scope.projectId }, order: { id: 'DESC' }, take });
    return rows.map(toUpsertView);
  }

  async lookup(scope: Scope, ids: string[]): Promise<UpsertView[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows = await this.ds.getRepository(UpsertEntity).findBy({ projectId: scope.projectId, id: In(valid) });
    return rows.map(toUpsertView);
  }
}
