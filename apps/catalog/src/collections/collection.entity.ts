import { FieldDeclaration } from '@askdata/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type FieldMap = Record<string, FieldDeclaration>;

@Entity({ name: 'collections' })
@Index('collections_project_slug_uq', ['projectId', 'slug'], { unique: true })
export class CollectionEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 64 }) slug!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('varchar', { length: 255 }) source!: string;
  /** Filterable fields declared by clients in `collection.metadata`. */
  @Column('jsonb', { name: 'declared_fields', default: () => "'{}'" }) declaredFields!: FieldMap;
  /** Fields seen in items' metadata, with the type first seen. */
  @Column('jsonb', { name: 'inferred_fields', default: () => "'{}'" }) inferredFields!: FieldMap;
  /** The language declared for its items (ISO 639-1), used for items that give none. */
  @Column('varchar', { length: 8, nullable: true }) language!: string | null;
  @Column('integer', { name: 'items_count', default: 0 }) itemsCount!: number;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}
