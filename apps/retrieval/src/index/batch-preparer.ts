import { Inject, Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { ChunkInput } from '@askdata/contracts';
import { pastDeadline, ThreadCalls, timeLeft } from '@askdata/common';
import { join } from 'node:path';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { BatchMeta, Preparation, prepareBatch } from './batch-preparation';
import type { Bm25Parameters } from './sparse-vectors';

/** A request to the preparation thread. */
export interface PreparationRequest {
  items: ChunkInput[];
  meta: BatchMeta;
  bm25: Bm25Parameters;
}

/** The script of the preparation thread, if not the compiled one beside this module. */
export const PREPARATION_THREAD_SCRIPT = Symbol('PREPARATION_THREAD_SCRIPT');

/**
 * Prepares the PostgreSQL backend's index batches (`prepareBatch`: analysis, impacts, blocks, the rows' JSON) on a
 * thread of their own when INDEX_PREPARATION_THREAD is set, so that the service's event loop (searches, the bus, and in
 * standalone mode every other service and the database's statements) is not held by them while they run; otherwise,
 * or when running from sources (no compiled thread script), on the event loop, in slices. The thread starts with the
 * service. A thread that fails, exits or owes batches and answers none for INDEX_PREPARATION_TIMEOUT_MS (then it is
 * stopped) fails the batches it held, which are retried, and the next batch starts a new one; a batch written for a
 * caller fails alone at the caller's deadline.
 */
@Injectable()
export class BatchPreparer implements OnModuleInit, OnModuleDestroy {
  private readonly bm25: Bm25Parameters;
  private readonly thread: ThreadCalls<PreparationRequest, Preparation> | null;
  /** Whether the PostgreSQL index is the configured one (otherwise it only takes rebuilds, and the thread waits for one). */
  private readonly eager: boolean;

  constructor(
    @Inject(RETRIEVAL_CONFIG)
    config: Pick<RetrievalConfig, 'BM25_K1' | 'BM25_B' | 'BM25_AVG_LENGTH' | 'INDEX_PREPARATION_THREAD' | 'INDEX_PREPARATION_TIMEOUT_MS'> &
      Partial<Pick<RetrievalConfig, 'SEARCH_BACKEND'>>,
    @Optional() @Inject(PREPARATION_THREAD_SCRIPT) script?: string,
  ) {
    this.bm25 = { k1: config.BM25_K1, b: config.BM25_B, avgLength: config.BM25_AVG_LENGTH };
    this.eager = config.SEARCH_BACKEND !== 'qdrant';
    this.thread = ThreadCalls.optional(config.INDEX_PREPARATION_THREAD, join(__dirname, 'batch-preparation.worker.js'), script, {
      failed: 'preparing an index batch failed',
      thread: 'the index preparation thread',
      hungMs: config.INDEX_PREPARATION_TIMEOUT_MS,
    });
  }

  /** Whether batches are prepared on a thread of their own. */
  get threaded(): boolean {
    return this.thread !== null;
  }

  /** The thread is started with the service, so the first batch does not wait for it. */
  onModuleInit(): void {
    if (this.eager) this.thread?.start();
  }

  prepare(items: ChunkInput[], meta: BatchMeta): Promise<Preparation> {
    if (!this.thread) return prepareBatch(items, meta, this.bm25);
    // Written for a caller (over the bus): its deadline ends the wait, and nothing is written after it.
    return this.thread.call({ items, meta, bm25: this.bm25 }, { ms: timeLeft(), error: () => pastDeadline('its index batch was prepared') });
  }

  async onModuleDestroy(): Promise<void> {
    await this.thread?.stop();
  }
}
