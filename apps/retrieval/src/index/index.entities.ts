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
  /**
   * The chunk's forward index: term -> [term frequency, impact of its posting]. Exact BM25 scores of candidate
   * chunks are computed from it, and it names the postings to delete when the chunk is replaced.
   */
  @Column('jsonb', { default: () => "'{}'" }) terms!: Record<string, [number, number]>;
}

/**
 * The inverted index, impact-ordered: one row per (term, chunk), keyed so that a term's postings are read best
 * first. The impact is the posting's BM25 term-frequency part (length-normalised with the average length when it
 * was written) in units of 1/10,000; it orders candidates, and exact scores come from the chunks' forward index.
 * Tenant and collection are repeated so those filters apply while the postings are read.
 */
@Entity({ name: 'postings' })
export class PostingEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @PrimaryColumn('varchar', { length: 64 }) term!: string;
  @PrimaryColumn('integer') impact!: number;
  @PrimaryColumn('uuid', { name: 'chunk_id' }) chunkId!: string;
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
