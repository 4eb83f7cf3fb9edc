import { WebhookOutbox } from '@askdata/common';
import type { WebhookEventType } from '@askdata/contracts';
import { EntityManager, In } from 'typeorm';
import { UpsertEntity } from './upsert.entity';
import { toUpsertView } from './upsert-view';

/**
 * Writes the webhook events of upserts that just finished (`ids`, updated in the caller's transaction, so the events
 * are committed with the change): `upsert.completed` or `delete.completed`, `upsert.failed` for either kind; each
 * carries the receipt as `GET /v1/upserts/{id}` shows it.
 */
export async function announceFinished(tx: EntityManager, ids: Array<{ id: string }>): Promise<void> {
  if (ids.length === 0) return;
  const rows = await tx.getRepository(UpsertEntity).find({ where: { id: In(ids.map((r) => r.id)) }, order: { id: 'ASC' } });
  const type = (row: UpsertEntity): WebhookEventType => (row.status === 'failed' ? 'upsert.failed' : row.kind === 'delete' ? 'delete.completed' : 'upsert.completed');
  await WebhookOutbox.write(
    tx,
    rows.map((row) => ({ projectId: row.projectId, type: type(row), resource: 'upsert' as const, data: toUpsertView(row) })),
  );
}
