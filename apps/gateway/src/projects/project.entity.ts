import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { KeyKind, Tenancy } from '@askdata/contracts';

@Entity({ name: 'projects' })
export class ProjectEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('varchar', { length: 8 }) tenancy!: Tenancy;
  @Column('text', { nullable: true }) instructions!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** API keys are stored only as a SHA-256 hash of the secret (keys are 256-bit random, so no slow hash is needed). */
@Entity({ name: 'api_keys' })
@Index('api_keys_hash_uq', ['keyHash'], { unique: true })
@Index('api_keys_project_idx', ['projectId', 'id'])
export class ApiKeyEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 255, nullable: true }) name!: string | null;
  @Column('varchar', { length: 16 }) prefix!: string;
  @Column('char', { name: 'key_hash', length: 64 }) keyHash!: string;
  /** Keys made before kinds existed are secret. */
  @Column('varchar', { length: 16, default: 'secret' }) kind!: KeyKind;
  /** Publishable keys: the exact origins (`https://shop.example`) whose pages may use the key. */
  @Column('jsonb', { default: () => "'[]'" }) origins!: string[];
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  /** To the minute (KeyUsage); null until first used. */
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt!: Date | null;
}
