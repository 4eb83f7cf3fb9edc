import { Injectable } from '@nestjs/common';
import { BusRequest, BusResponse, DeletedItem, DeleteTarget, Subjects } from '@askdata/contracts';
import { announceListChange, BusClient, queryRows } from '@askdata/common';
import { DataSource } from 'typeorm';

type S = typeof Subjects.catalog;

/** The condition that selects a target's items (`i` items, `c` their collections), with its parameters after `$1`, the project. */
function targetCondition(target: DeleteTarget): { where: string; params: unknown[] } {
  switch (target.kind) {
    case 'item':
      return { where: 'i.id = $2', params: [target.id] };
    case 'client_item':
      return { where: 'c.slug = $2 AND i.item_id = $3', params: [target.collection, target.itemId] };
    case 'collection':
      return { where: 'i.collection_id = $2', params: [target.id] };
    case 'tenant':
      return { where: 'i.tenant = $2', params: [target.tenant] };
  }
}

/** Deletes of items, collections and a tenant's items, in rounds (see the ingestion's DeleteProcessor). */
@Injectable()
export class DeletesService {
  constructor(
    private readonly ds: DataSource,
    private readonly bus: BusClient,
  ) {}

  async select(req: BusRequest<S['deletesSelect']>): Promise<BusResponse<S['deletesSelect']>> {
    const { where, params } = targetCondition(req.target);
    const items = await queryRows<DeletedItem>(
      this.ds,
      `SELECT i.id, i.item_id, c.slug AS collection
         FROM catalog.items i JOIN catalog.collections c ON c.id = i.collection_id
        WHERE i.project_id = $1 AND ${where}
        ORDER BY i.id
        LIMIT ${Math.max(1, Math.floor(req.limit))}`,
      [req.scope.projectId, ...params],
    );
    return { items };
  }

  /**
   * Deletes the items (those of the target among `ids`), what links them to upserts and their count in their
   * collections, in one transaction; with `last`, a collection target's collection goes too, once it holds nothing.
   * Idempotent. Every gateway is told before this answers.
   */
  async apply(req: BusRequest<S['deletesApply']>): Promise<BusResponse<S['deletesApply']>> {
    const project = req.scope.projectId;
    const { where, params } = targetCondition(req.target);
    const deleted = await this.ds.transaction(async (tx) => {
      const gone = await queryRows<{ id: string; collection_id: string }>(
        tx,
        `DELETE FROM catalog.items i USING catalog.collections c
          WHERE c.id = i.collection_id AND i.project_id = $1 AND ${where} AND i.id = ANY($${params.length + 2}::uuid[])
         RETURNING i.id, i.collection_id`,
        [project, ...params, req.ids],
      );
      if (gone.length) {
        await tx.query('DELETE FROM catalog.item_upserts WHERE item_id = ANY($1::uuid[])', [gone.map((g) => g.id)]);
        const counts = new Map<string, number>();
        for (const g of gone) counts.set(g.collection_id, (counts.get(g.collection_id) ?? 0) + 1);
        await tx.query(
          `UPDATE catalog.collections c SET items_count = greatest(c.items_count - d.n, 0), updated_at = now()
             FROM unnest($1::uuid[], $2::int[]) AS d(id, n) WHERE c.id = d.id`,
          [[...counts.keys()], [...counts.values()]],
        );
      }
      if (req.last && req.target.kind === 'collection') {
        await tx.query(
          `DELETE FROM catalog.collections c WHERE c.id = $1 AND c.project_id = $2
              AND NOT EXISTS (SELECT 1 FROM catalog.items i WHERE i.collection_id = c.id)`,
          [req.target.id, project],
        );
      }
      return { items: gone.length };
    });
    // Announced even when a repeated call found nothing left: the first may have committed and failed to announce.
    await announceListChange(this.bus, project);
    return { deleted: deleted.items };
  }
}
