import { loadConfig, migrate } from '@askdata/common';
import { DataSource } from 'typeorm';
import { BatchPreparer } from '../../../apps/retrieval/src/index/batch-preparer';
import { BlockMerges } from '../../../apps/retrieval/src/index/block-merges';
import { IndexVacuum } from '../../../apps/retrieval/src/index/index-vacuum';
import { MemoryIndexes } from '../../../apps/retrieval/src/index/memory-indexes';
import { PostgresIndex } from '../../../apps/retrieval/src/index/postgres-index';
import { retrievalSettings } from '../../../apps/retrieval/src/retrieval.config';
import { retrievalDatabase } from '../../../apps/retrieval/src/retrieval.database';
import { scratchDatabase } from './scratch-database';

/** Background merges of posting blocks, off: a test's index keeps the blocks its batches wrote. */
export function noMerges(ds: DataSource): BlockMerges {
  return new BlockMerges(ds, { BLOCK_MERGE_QUIET_MS: 0, BLOCK_MERGE_BATCHES: 256, BLOCK_MERGE_POSTINGS: 64 }, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }));
}

/**
 * A replica of retrieval over `ds` searching from its own memory (`mb` of it; 0: in SQL), exhaustively (BM25_DEPTH 0),
 * its posting blocks not merged. Shared (distributed) unless said, listening for versions at `versionsUrl` if given.
 */
export function memoryReplica(ds: DataSource, mb: number, { shared = true, versionsUrl = null }: { shared?: boolean; versionsUrl?: string | null } = {}) {
  const config = loadConfig(retrievalSettings, { BM25_DEPTH: '0', SEARCH_MEMORY_MB: String(mb), INDEX_PREPARATION_THREAD: 'false' });
  const memory = new MemoryIndexes(ds, config, shared, versionsUrl);
  return { index: new PostgresIndex(ds, config, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }), new BatchPreparer(config), memory, noMerges(ds)), memory };
}

/**
 * An index over `ds` searched in SQL (no memory index, every posting read) whose small posting blocks (fewer than
 * `mergePostings`) are merged only when the test says so (`merges.merge`).
 */
export function sqlIndex(ds: DataSource, mergePostings = 64): { index: PostgresIndex; merges: BlockMerges } {
  const config = loadConfig(retrievalSettings, { BM25_DEPTH: '0', SEARCH_MEMORY_MB: '0', INDEX_PREPARATION_THREAD: 'false' });
  const vacuum = new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 });
  const merges = new BlockMerges(ds, { BLOCK_MERGE_QUIET_MS: 3_600_000, BLOCK_MERGE_BATCHES: 1_000_000, BLOCK_MERGE_POSTINGS: mergePostings }, vacuum);
  return { index: new PostgresIndex(ds, config, vacuum, new BatchPreparer(config), new MemoryIndexes(ds, config, false), merges), merges };
}

/**
 * A retrieval schema of its own on the local PostgreSQL, and an index over it searched in SQL (no memory index, every
 * posting read) whose small posting blocks are merged only when the test says so (`merges.merge`). Its database,
 * index and merges are there once `start` has run.
 */
export class ScratchIndex {
  readonly scratch: ReturnType<typeof scratchDatabase>;
  ds!: DataSource;
  index!: PostgresIndex;
  merges!: BlockMerges;

  constructor(
    prefix: string,
    private readonly mergePostings: number,
  ) {
    this.scratch = scratchDatabase(prefix);
  }

  async start(): Promise<void> {
    await this.scratch.reset();
    this.ds = this.scratch.current(retrievalDatabase);
    await this.ds.initialize();
    await migrate(this.ds, 'retrieval');
    ({ index: this.index, merges: this.merges } = sqlIndex(this.ds, this.mergePostings));
  }

  async stop(): Promise<void> {
    this.merges.onApplicationShutdown();
    await this.ds.destroy();
    await this.scratch.drop();
  }
}
