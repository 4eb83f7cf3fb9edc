import { Counter, Gauge, Histogram } from 'prom-client';
import { latencyBuckets, registry } from '@askdata/common';

/** Retrieval's metrics. */
export const retrievalMetrics = {
  retrievalDuration: new Histogram({
    name: 'askdata_retrieval_duration_seconds',
    help: 'Search latency inside the retrieval service, by backend.',
    labelNames: ['backend'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
  memorySearches: new Counter({
    name: 'askdata_search_memory_total',
    help: "PostgreSQL backend searches by where they were scored: memory (the index held in this process's memory) or sql (not held yet, too big, or not up to date).",
    labelNames: ['scored'] as const,
    registers: [registry],
  }),
  memoryBytes: new Gauge({
    name: 'askdata_search_memory_bytes',
    help: 'PostgreSQL backend: memory taken by the indexes held in memory (estimated), against SEARCH_MEMORY_MB.',
    registers: [registry],
  }),
  rowsBytes: new Gauge({
    name: 'askdata_search_rows_bytes',
    help: "PostgreSQL backend: memory taken by the rows of chunks kept for searches' hits (estimated), against SEARCH_ROWS_MB.",
    registers: [registry],
  }),
  rowsReadAhead: new Counter({
    name: 'askdata_search_rows_read_ahead_total',
    help: 'PostgreSQL backend: indexes whose rows were read ahead on their first search in memory, by outcome (whole: all of them, kept; too_big: more than half SEARCH_ROWS_MB, as many as fit kept, the rest as searches find them; failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  blockMerges: new Counter({
    name: 'askdata_index_block_merges_total',
    help: 'PostgreSQL backend: posting blocks merged into fewer rows in the background, by what (merged: rows that went into a merge; made: the rows they made).',
    labelNames: ['what'] as const,
    registers: [registry],
  }),
  blockMergeRunning: new Gauge({
    name: 'askdata_index_block_merge_running',
    help: "PostgreSQL backend: 1 while this replica merges an index's posting blocks.",
    registers: [registry],
  }),
  blockMergeRuns: new Histogram({
    name: 'askdata_index_block_merge_duration_seconds',
    help: "PostgreSQL backend: background merges of an index's posting blocks, by outcome (done; stopped: the index was written to meanwhile, the rest waits for the next pause; failed).",
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [registry],
  }),
  indexVacuums: new Histogram({
    name: 'askdata_index_vacuum_duration_seconds',
    help: "Background maintenance of the PostgreSQL index tables, by kind (vacuum: vacuum and analyse; analyze: analyse only; key_rebuild: the posting blocks' key rebuilt online; rewrite: their table and key rewritten) and outcome (done; skipped: a table another replica or autovacuum held, tried again after the next pause; failed).",
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [registry],
  }),
};
