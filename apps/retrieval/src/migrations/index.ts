import { Initial1795364054715 } from './1795364054715-initial';
import { ImpactOrderedPostings1795385738237 } from './1795385738237-impact-ordered-postings';
import { PostingBlocks1795500000000 } from './1795500000000-posting-blocks';
import { ChunkNumbers1795610000000 } from './1795610000000-chunk-numbers';
import { NarrowStatistics1795700000000 } from './1795700000000-narrow-statistics';
import { CompactForwardIndex1795800000000 } from './1795800000000-compact-forward-index';
import { Languages1795900000000 } from './1795900000000-languages';
import { IndexRebuilds1796000000000 } from './1796000000000-index-rebuilds';
import { IndexChanges1796100000000 } from './1796100000000-index-changes';
import { CurrentLanguageCodes1796200000000 } from './1796200000000-current-language-codes';
import { BlockCounts1796300000000 } from './1796300000000-block-counts';
import { IndexVersionNotices1796400000000 } from './1796400000000-index-version-notices';
import { CompressedChunks1796500000000 } from './1796500000000-compressed-chunks';
import { PglzChunks1796600000000 } from './1796600000000-pglz-chunks';
import { PackedChunkText1796700000000 } from './1796700000000-packed-chunk-text';
import { PackedForwardIndex1796800000000 } from './1796800000000-packed-forward-index';

/** In order of application. */
export const MIGRATIONS = [
  Initial1795364054715,
  ImpactOrderedPostings1795385738237,
  PostingBlocks1795500000000,
  ChunkNumbers1795610000000,
  NarrowStatistics1795700000000,
  CompactForwardIndex1795800000000,
  Languages1795900000000,
  IndexRebuilds1796000000000,
  IndexChanges1796100000000,
  CurrentLanguageCodes1796200000000,
  BlockCounts1796300000000,
  IndexVersionNotices1796400000000,
  CompressedChunks1796500000000,
  PglzChunks1796600000000,
  PackedChunkText1796700000000,
  PackedForwardIndex1796800000000,
];
