import type { OutboxEvent, WebhookEventType, WebhookResource } from '@askdata/contracts';
import { Column, DataSource, Entity, EntityManager, PrimaryColumn } from 'typeorm';
import { queryRows } from '../database/query-rows';
import { isoMicro } from '../database/time';
import { uuidv7 } from '../database/uuid';

/**
 * A webhook event not yet handed to the gateway, in the schema of the service whose change it reports (each such
 * service lists this entity and has a migration for it). Written in the transaction of the change, so an event
 * exists exactly when its change was committed.
 */
@Entity({ name: 'webhook_outbox' })
export class WebhookOutboxEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 32 }) type!: string;
  /** What `data` is: `upsert`, `chat` or `message`. */
  @Column('varchar', { length: 16 }) resource!: string;
  /** The resource as the API shows it, as JSON. */
  @Column('text') data!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

/** Most events one read returns. */
const READ_LIMIT = 500;

/**
 * A service's webhook outbox (`<schema>.webhook_outbox`): events written with the change they report, read in the
 * order written by the gateway, which stores them for delivery and then acknowledges them (they are deleted). An
 * event read twice (the acknowledgement lost) is stored once by the gateway, by its id.
 */
export class WebhookOutbox {
  constructor(
    private readonly ds: DataSource,
    private readonly schema: string,
  ) {}

  /** Writes events in the caller's transaction, in order (ids grow). */
  static async write(tx: EntityManager, events: Array<{ projectId: string; type: WebhookEventType; resource: WebhookResource; data: unknown }>): Promise<void> {
    if (events.length === 0) return;
    const now = new Date();
    await tx
      .getRepository(WebhookOutboxEntity)
      .insert(events.map((e) => ({ id: uuidv7(), projectId: e.projectId, type: e.type, resource: e.resource, data: JSON.stringify(e.data), createdAt: now })));
  }

  /** The oldest events, at most `limit`, and no more than about `maxBytes` of data (at least one). */
  async read(limit: number, maxBytes: number): Promise<OutboxEvent[]> {
    const rows = await queryRows<{ id: string; project_id: string; type: WebhookEventType; resource: WebhookResource; data: string; created_at: Date }>(
      this.ds,
      `SELECT id, project_id, type, resource, data, created_at FROM "${this.schema}".webhook_outbox ORDER BY id LIMIT $1`,
      [Math.min(Math.max(1, Math.floor(limit)), READ_LIMIT)],
    );
    const events: OutboxEvent[] = [];
    let bytes = 0;
    for (const r of rows) {
      bytes += r.data.length;
      if (events.length && bytes > maxBytes) break;
      events.push({ id: r.id, project_id: r.project_id, type: r.type, resource: r.resource, created_at: isoMicro(r.created_at), data: JSON.parse(r.data) as unknown });
    }
    return events;
  }

  async ack(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await queryRows<{ id: string }>(this.ds, `DELETE FROM "${this.schema}".webhook_outbox WHERE id = ANY($1::uuid[]) RETURNING id`, [ids]);
    return rows.length;
  }
}
