import { DataSource } from 'typeorm';
import { BlockMerges } from '../../../apps/retrieval/src/index/block-merges';
import { IndexVacuum } from '../../../apps/retrieval/src/index/index-vacuum';

/** Background merges of posting blocks, off: a test's index keeps the blocks its batches wrote. */
export function noMerges(ds: DataSource): BlockMerges {
  return new BlockMerges(ds, { BLOCK_MERGE_QUIET_MS: 0, BLOCK_MERGE_BATCHES: 256, BLOCK_MERGE_POSTINGS: 64 }, new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }));
}
