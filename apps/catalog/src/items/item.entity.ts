import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity({ name: 'items' })
@Index('items_project_collection_item_uq', ['projectId', 'collectionId', 'itemId'], { unique: true })
@Index('items_project_id_idx', ['projectId', 'id'])
@Index('items_project_item_id_idx', ['projectId', 'itemId'])
@Index('items_collection_idx', ['collectionId', 'id'])
@Index('items_project_tenant_idx', ['projectId', 'tenant', 'id'])
export class ItemEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('uuid', { name: 'collection_id' }) collectionId!: string;
  /** The client's id. */
  @Column('varchar', { name: 'item_id', length: 255 }) itemId!: string;
  @Column('integer', { nullable: true }) tenant!: number | null;
  @Column('text', { nullable: true }) url!: string | null;
  /** Its data, for rows written before `packed`; null since. */
  @Column('jsonb', { nullable: true }) data!: Record<string, unknown> | null;
  /** Its data as JSON compressed (`packJson`). */
  @Column('bytea', { nullable: true }) packed!: Buffer | null;
  @Column('jsonb', { default: () => "'{}'" }) metadata!: Record<string, unknown>;
  /** The language of its data: given, the collection's, or detected; null when it could not be told. */
  @Column('varchar', { length: 8, nullable: true }) language!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** Which upserts touched which item; an item's are read through the key (upsert ids are time-ordered). */
@Entity({ name: 'item_upserts' })
export class ItemUpsertEntity {
  @PrimaryColumn('uuid', { name: 'item_id' }) itemId!: string;
  @PrimaryColumn('uuid', { name: 'upsert_id' }) upsertId!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}
