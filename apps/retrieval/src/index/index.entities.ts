import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One indexed passage of an item. */
@Entity({ name: 'chunks' })
@Index('chunks_project_item_idx', ['projectId', 'itemId'])
export class ChunkEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 64 }) collection!: string;
  @Column('integer', { nullable: true }) tenant!: number | null;
  /** Service-side item id (catalog). */
  @Column('uuid', { name: 'item_id' }) itemId!: string;
  /** The client's item id. */
  @Column('varchar', { name: 'client_item_id', length: 255 }) clientItemId!: string;
  @Column('integer') n!: number;
  @Column('text') text!: string;
  @Column('text', { nullable: true }) url!: string | null;
  @Column('jsonb', { default: () => "'{}'" }) metadata!: Record<string, unknown>;
  /** Number of terms, for BM25's length normalisation. */
  @Column('integer') length!: number;
}

/**
 * The inverted index: one row per (term, chunk) with the term frequency; the chunk's length, tenant and
 * collection are repeated here so ranking and the tenant and collection filters need no join.
 */
@Entity({ name: 'postings' })
export class PostingEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @PrimaryColumn('varchar', { length: 64 }) term!: string;
  @PrimaryColumn('uuid', { name: 'chunk_id' }) chunkId!: string;
  @Column('smallint') tf!: number;
  @Column('integer') length!: number;
  @Column('integer', { nullable: true }) tenant!: number | null;
  @Column('varchar', { length: 64 }) collection!: string;
}

/** Document frequency of each term in a project: exact, updated as chunks are added, replaced and removed. */
@Entity({ name: 'terms' })
export class TermEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @PrimaryColumn('varchar', { length: 64 }) term!: string;
  @Column('integer') df!: number;
}

/** Number of chunks and their total length per project, for IDF and the average length. */
@Entity({ name: 'stats' })
export class StatsEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @Column('integer', { name: 'chunk_count' }) chunkCount!: number;
  @Column('bigint', { name: 'total_length' }) totalLength!: number;
}
