import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import type { WebhookDeliveryStatus, WebhookEventType } from '@askdata/contracts';

/** Where a project's webhook events go. The secret signs every delivery, so it is stored as it is (not hashed). */
@Entity({ name: 'webhook_endpoints' })
@Index('webhook_endpoints_project_idx', ['projectId', 'id'])
export class WebhookEndpointEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('text') url!: string;
  @Column('jsonb') events!: WebhookEventType[];
  @Column('varchar', { length: 80 }) secret!: string;
  @Column('boolean') enabled!: boolean;
  @Column('text', { name: 'disabled_reason', nullable: true }) disabledReason!: string | null;
  @Column('timestamptz', { name: 'disabled_at', nullable: true }) disabledAt!: Date | null;
  /** Failed attempts since the last delivered one, and when the first of them failed. */
  @Column('integer', { name: 'consecutive_failures', default: 0 }) consecutiveFailures!: number;
  @Column('timestamptz', { name: 'failing_since', nullable: true }) failingSince!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/**
 * One event to one endpoint: pending until delivered (a 2xx) or given up (`failed`, WEBHOOK_RETRY_MS after it was
 * stored). Ids are UUIDv7 given in the order the events were written, and an endpoint's deliveries are sent in id
 * order: a later one waits while an earlier one is pending. Finished ones are kept as the endpoint's log.
 */
@Entity({ name: 'webhook_deliveries' })
@Unique('webhook_deliveries_event_key', ['endpointId', 'eventId'])
@Index('webhook_deliveries_pending_idx', ['endpointId', 'id'], { where: "status = 'pending'" })
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'endpoint_id' }) endpointId!: string;
  @Column('uuid', { name: 'event_id' }) eventId!: string;
  @Column('varchar', { name: 'event_type', length: 32 }) eventType!: WebhookEventType;
  /** The request body, as sent (and signed) at every attempt. */
  @Column('text') body!: string;
  @Column('varchar', { length: 16 }) status!: WebhookDeliveryStatus;
  @Column('integer', { default: 0 }) attempts!: number;
  @Column('timestamptz', { name: 'next_at' }) nextAt!: Date;
  /** While an attempt is under way: another replica may take it over after this. */
  @Column('timestamptz', { name: 'lease_until', nullable: true }) leaseUntil!: Date | null;
  @Column('integer', { name: 'last_status_code', nullable: true }) lastStatusCode!: number | null;
  @Column('text', { name: 'last_error', nullable: true }) lastError!: string | null;
  @Column('timestamptz', { name: 'last_attempt_at', nullable: true }) lastAttemptAt!: Date | null;
  @Column('timestamptz', { name: 'delivered_at', nullable: true }) deliveredAt!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

/** Which gateway relays a service's outbox (one at a time, so events are stored in the order written), until when. */
@Entity({ name: 'webhook_relays' })
export class WebhookRelayEntity {
  @PrimaryColumn('varchar', { length: 32 }) source!: string;
  @Column('varchar', { length: 64 }) owner!: string;
  @Column('timestamptz', { name: 'lease_until' }) leaseUntil!: Date;
}
