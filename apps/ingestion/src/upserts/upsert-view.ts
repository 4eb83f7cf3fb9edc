import { DeleteTarget, DeleteTargetView, UpsertView } from '@askdata/contracts';
import { isoMicro } from '@askdata/common';
import { UpsertEntity } from './upsert.entity';

/** An upsert (or delete) as `GET /v1/upserts/{id}` shows it, and as its webhook events carry it. */
export function toUpsertView(row: UpsertEntity): UpsertView {
  return {
    id: row.id,
    chunk_size: row.itemsCount,
    status: row.status,
    started_at: isoMicro(row.startedAt),
    completed_at: isoMicro(row.completedAt),
    created_at: isoMicro(row.createdAt),
    collection: row.collection,
    items_count: row.itemsCount,
    error: row.error,
    attempts: row.attempts,
    kind: row.kind,
    target: row.target ? targetView(row.target) : null,
  };
}

/** A delete's target as its receipt shows it. */
function targetView(t: DeleteTarget): DeleteTargetView {
  switch (t.kind) {
    case 'item':
      return { item: t.id };
    case 'client_item':
      return { collection: t.collection, item_id: t.itemId };
    case 'collection':
      return { collection: t.slug };
    case 'tenant':
      return { tenant: t.tenant };
  }
}
