import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A POST of /v1 sent with an `Idempotency-Key`: what it asked (a hash of method, path and body), the id it gives
 * what it creates (the same on every retry, so the service that creates it returns what exists), and once
 * answered, the status and body every retry gets. In progress while `status` is null: owned by one request until
 * `held_until`, then free for a retry to take over.
 */
@Entity({ name: 'idempotency_keys' })
@Index('idempotency_keys_expires_idx', ['expiresAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @PrimaryColumn('varchar', { length: 255 }) key!: string;
  @Column('char', { length: 64 }) fingerprint!: string;
  @Column('uuid', { name: 'operation_id' }) operationId!: string;
  @Column('smallint', { nullable: true }) status!: number | null;
  @Column('text', { nullable: true }) response!: string | null;
  @Column('timestamptz', { name: 'held_until', nullable: true }) heldUntil!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
}
