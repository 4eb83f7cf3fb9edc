import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A project's search index: the key its chunks are stored under (in the PostgreSQL tables, or the Qdrant collection's
 * name), the backend holding them and the analyzer version that wrote them; and its rebuild, if one was ever made: a
 * new index written under another key while searches read the live one, which it replaces once complete.
 */
@Entity({ name: 'project_indexes' })
export class ProjectIndexEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @Column('uuid', { name: 'live_key' }) liveKey!: string;
  @Column('varchar', { length: 16 }) backend!: string;
  @Column('integer') analyzer!: number;
  /** none, building, completed or failed. */
  @Column('varchar', { name: 'build_status', length: 16, default: 'none' }) buildStatus!: string;
  /** requested, analyzer or backend. */
  @Column('varchar', { name: 'build_reason', length: 16, nullable: true }) buildReason!: string | null;
  @Column('uuid', { name: 'build_key', nullable: true }) buildKey!: string | null;
  @Column('varchar', { name: 'build_backend', length: 16, nullable: true }) buildBackend!: string | null;
  @Column('integer', { name: 'build_analyzer', nullable: true }) buildAnalyzer!: number | null;
  /** Where the copy of the live index stands (null: at the start, or done). */
  @Column('text', { name: 'build_cursor', nullable: true }) buildCursor!: string | null;
  /** A stamp taken when it started: items written to the project after it are copied again once the copy is done. */
  @Column('bigint', { name: 'build_mark', default: 0 }) buildMark!: string;
  /** Whether the copy is done: items written since are then copied again until none is left. */
  @Column('boolean', { name: 'build_copied', default: false }) buildCopied!: boolean;
  /** Chunks per language written by the copy, for the project's languages once it is live. */
  @Column('jsonb', { name: 'build_languages', default: () => "'{}'" }) buildLanguages!: Record<string, number>;
  @Column('bigint', { name: 'chunks_done', default: 0 }) chunksDone!: string;
  @Column('bigint', { name: 'chunks_total', default: 0 }) chunksTotal!: string;
  @Column('timestamptz', { name: 'started_at', nullable: true }) startedAt!: Date | null;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt!: Date | null;
  @Column('text', { nullable: true }) error!: string | null;
  /** The replica building it, until `lease_until` (renewed as it goes). */
  @Column('varchar', { length: 64, nullable: true }) owner!: string | null;
  @Column('timestamptz', { name: 'lease_until', nullable: true }) leaseUntil!: Date | null;
  /** The index replaced by the last rebuild, removed once no search can still be reading it. */
  @Column('uuid', { name: 'retired_key', nullable: true }) retiredKey!: string | null;
  @Column('varchar', { name: 'retired_backend', length: 16, nullable: true }) retiredBackend!: string | null;
  @Column('timestamptz', { name: 'retired_at', nullable: true }) retiredAt!: Date | null;
}

/**
 * Items written to a project while its index is rebuilt: they go to both indexes, and the rebuild copies them again
 * from the live index after its copy, until a round finds none written meanwhile (`started`, `done`: stamps from
 * `retrieval.build_stamp_seq`; `in_flight`: writes begun and not ended).
 */
@Entity({ name: 'build_writes' })
export class BuildWriteEntity {
  @PrimaryColumn('uuid', { name: 'build_key' }) buildKey!: string;
  @PrimaryColumn('uuid', { name: 'item_id' }) itemId!: string;
  @Column('bigint') started!: string;
  @Column('bigint', { default: 0 }) done!: string;
  @Column('integer', { name: 'in_flight', default: 0 }) inFlight!: number;
}
