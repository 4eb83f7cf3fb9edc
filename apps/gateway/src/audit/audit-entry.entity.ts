import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { AuditAction } from '@askdata/contracts';

/** What an entry says changed: plain values, and `{from, to}` for a changed field. */
export type AuditDetails = Record<string, string | boolean | null | string[] | { from: string; to: string }>;

/** One change made through the admin API. Holds fingerprints and prefixes, never a secret. */
@Entity({ name: 'audit_log' })
@Index('audit_log_project_idx', ['projectId', 'id'])
export class AuditEntryEntity {
  /** UUIDv7: newest first is `ORDER BY id DESC`. */
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar', { length: 32 }) action!: AuditAction;
  @Column('varchar', { length: 64 }) actor!: string;
  @Column('varchar', { length: 64 }) address!: string;
  @Column('uuid', { name: 'project_id', nullable: true }) projectId!: string | null;
  @Column('uuid', { name: 'key_id', nullable: true }) keyId!: string | null;
  @Column('jsonb') details!: AuditDetails;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}
