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
 * A retrieval schema of its own on the local PostgreSQL, and an index over it searched in SQL (no memory index, every
 * posting read) whose small posting blocks are merged only when the test says so (`merges.merge`).
 */
export function scratchIndex(prefix: string, mergePostings: number) {
  const scratch = scratchDatabase(prefix);
  const made = {
    scratch,
    ds: undefined as unknown as DataSource,
    index: undefined as unknown as PostgresIndex,
    merges: undefined as unknown as BlockMerges,
    async start(): Promise<void> {
      await scratch.reset();
      made.ds = scratch.current(retrievalDatabase);
      await made.ds.initialize();
      await migrate(made.ds, 'retrieval');
      const config = loadConfig(retrievalSettings, { BM25_DEPTH: '0', SEARCH_MEMORY_MB: '0', INDEX_PREPARATION_THREAD: 'false' });
      const vacuum = new IndexVacuum(made.ds, { INDEX_VACUUM_ROWS: 0 });
      made.merges = new BlockMerges(made.ds, { BLOCK_MERGE_QUIET_MS: 3_600_000, BLOCK_MERGE_BATCHES: 1_000_000, BLOCK_MERGE_POSTINGS: mergePostings }, vacuum);
      made.index = new PostgresIndex(made.ds, config, vacuum, new BatchPreparer(config), new MemoryIndexes(made.ds, config, false), made.merges);
    },
    async stop(): Promise<void> {
      made.merges.onApplicationShutdown();
      await made.ds.destroy();
      await scratch.drop();
    },
  };
  return made;
}
