import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { CollectionInput, DeleteTarget, Tenancy, UpsertItemInput, UpsertKind, UpsertStatus } from '@askdata/contracts';

@Entity({ name: 'upserts' })
@Index('upserts_project_id_idx', ['projectId', 'id'])
@Index('upserts_claim_idx', ['status', 'availableAt'])
// The unfinished upserts of each project in acceptance order: the oldest one is the only one a worker may claim.
@Index('upserts_unfinished_idx', ['projectId', 'id'], { where: "status IN ('queued', 'processing')" })
export class UpsertEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 64 }) collection!: string;
  @Column('varchar', { length: 16 }) status!: UpsertStatus;
  /** An upsert, or a delete queued among them (never grouped with others: it is applied alone, in its turn). */
  @Column('varchar', { length: 16, default: 'upsert' }) kind!: UpsertKind;
  /** What a delete removes; null for upserts. */
  @Column('jsonb', { nullable: true }) target!: DeleteTarget | null;
  @Column('integer', { name: 'items_count' }) itemsCount!: number;
  @Column('integer', { default: 0 }) attempts!: number;
  /** Of those, the attempts that failed because a service was unavailable (not counted against UPSERT_MAX_ATTEMPTS). */
  @Column('integer', { name: 'outage_attempts', default: 0 }) outageAttempts!: number;
  /** When the first of those failed. */
  @Column('timestamptz', { name: 'outage_since', nullable: true }) outageSince!: Date | null;
  /** Catalog stored the items in an attempt that then failed: a `failed` upsert says so in its error. */
  @Column('boolean', { name: 'items_stored', default: false }) itemsStored!: boolean;
  /** A queued upsert is not claimed before this time (retry backoff). */
  @Column('timestamptz', { name: 'available_at' }) availableAt!: Date;
  /** While processing: the claim expires at this time and another worker may take over. */
  @Column('timestamptz', { name: 'lease_until', nullable: true }) leaseUntil!: Date | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'started_at', nullable: true }) startedAt!: Date | null;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt!: Date | null;
}

/**
 * The accepted batch itself, stored in the same transaction as its upsert row before the 201: an
 * {@link UpsertBatchPayload} as JSON text, kept out of line and uncompressed (read back once, whole).
 */
@Entity({ name: 'upsert_batches' })
export class UpsertBatchEntity {
  @PrimaryColumn('uuid', { name: 'upsert_id' }) upsertId!: string;
  @Column('text') payload!: string;
}

export interface UpsertBatchPayload {
  tenancy: Tenancy;
  collection: CollectionInput | null;
  items: UpsertItemInput[];
  /** A delete's target: the batch then holds no items. */
  delete?: DeleteTarget;
}
