import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One indexed passage of an item. Its text and forward index are stored compressed with DEFLATE (`packed`,
 * `forward`); rows written before them keep `text` and `terms`, compressed by the database (LZ4 where the server has
 * it, pglz elsewhere: set by the migrations).
 */
@Entity({ name: 'chunks' })
@Index('chunks_project_item_idx', ['projectId', 'itemId'])
export class ChunkEntity {
  /** Its number: the block it was written in times 2^24 plus its place in that batch (negative: indexed before). */
  @PrimaryColumn('bigint') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 64 }) collection!: string;
  @Column('integer', { nullable: true }) tenant!: number | null;
  /** Service-side item id (catalog). */
  @Column('uuid', { name: 'item_id' }) itemId!: string;
  /** The client's item id. */
  @Column('varchar', { name: 'client_item_id', length: 255 }) clientItemId!: string;
  @Column('integer') n!: number;
  /** Its text, for rows written before `packed`; null since. */
  @Column('text', { nullable: true }) text!: string | null;
  /** Its text compressed (`packText`). */
  @Column('bytea', { nullable: true }) packed!: Buffer | null;
  /** Its item's title, indexed with it (null: indexed before titles were kept). */
  @Column('text', { nullable: true }) title!: string | null;
  /** The language its text was analyzed in (ISO 639-1). */
  @Column('varchar', { length: 8, default: 'en' }) language!: string;
  @Column('text', { nullable: true }) url!: string | null;
  @Column('jsonb', { default: () => "'{}'" }) metadata!: Record<string, unknown>;
  /** Number of terms, for BM25's length normalisation. */
  @Column('integer') length!: number;
  /**
   * The chunk's forward index, compressed (`packForward`): its terms and, for each, term frequency x 2^17 + impact of
   * its posting (`forwardEntry`). Exact BM25 scores of candidate chunks are computed from it, and with `block` it
   * names the postings to remove when the chunk is replaced.
   */
  @Column('bytea', { nullable: true }) forward!: Buffer | null;
  /** The forward index as rows written before `forward` hold it, term -> entry; null since. */
  @Column('jsonb', { nullable: true }) terms!: Record<string, number> | null;
  /** The block its postings were written in (one per index batch). */
  @Column('bigint', { default: 0 }) block!: string;
}

/**
 * The inverted index, in blocks: one row per (term, impact band, index batch, collection) holding that batch's
 * postings of the term in the band as parallel arrays, best impact first. The impact is a posting's BM25
 * term-frequency part (length-normalised with the average length when it was written) in units of 1/10,000; the band
 * is the impact's geometric band (`bands.ts`), so the key reads a term's postings band by band, best first. Exact scores
 * come from the chunks' forward index. The tenant of each posting is kept beside it, so that filter applies while
 * the postings are read.
 */
@Entity({ name: 'posting_blocks' })
export class PostingBlockEntity {
  @PrimaryColumn('uuid', { name: 'project_id', primaryKeyConstraintName: 'PK_posting_blocks' }) projectId!: string;
  @PrimaryColumn('varchar', { length: 64, primaryKeyConstraintName: 'PK_posting_blocks' }) term!: string;
  @PrimaryColumn('smallint', { primaryKeyConstraintName: 'PK_posting_blocks' }) band!: number;
  @PrimaryColumn('bigint', { primaryKeyConstraintName: 'PK_posting_blocks' }) block!: string;
  @PrimaryColumn('varchar', { length: 64, primaryKeyConstraintName: 'PK_posting_blocks' }) collection!: string;
  /** The chunks' numbers. */
  @Column('bigint', { name: 'chunk_ids', array: true }) chunkIds!: string[];
  @Column('integer', { array: true }) impacts!: number[];
  @Column('integer', { array: true }) tenants!: Array<number | null>;
  /**
   * The postings the block holds: a term's document frequency is the sum over its blocks. Every write counts them
   * (null only for a block written before counts were kept, until the migration that keeps them has counted it).
   */
  @Column('integer', { nullable: true }) n!: number | null;
}

/** Number of chunks and their total length per project, for IDF and the average length. */
@Entity({ name: 'stats' })
export class StatsEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @Column('integer', { name: 'chunk_count' }) chunkCount!: number;
  @Column('bigint', { name: 'total_length' }) totalLength!: number;
  /** Changes with every write to the index (from `index_version_seq`, so never reused after a drop): what the memory index is checked against. */
  @Column('bigint', { default: 0 }) version!: string;
}

/**
 * The items each write to an index changed, by the version it gave the index and the version before it, so that a
 * replica's memory index catches up by re-reading those items; the last `INDEX_CHANGES_KEPT` writes are kept.
 */
@Entity({ name: 'index_changes' })
export class IndexChangeEntity {
  @PrimaryColumn('uuid', { name: 'project_id', primaryKeyConstraintName: 'PK_index_changes' }) projectId!: string;
  @PrimaryColumn('bigint', { primaryKeyConstraintName: 'PK_index_changes' }) version!: string;
  @Column('bigint') previous!: string;
  @Column('uuid', { name: 'item_ids', array: true }) itemIds!: string[];
}
