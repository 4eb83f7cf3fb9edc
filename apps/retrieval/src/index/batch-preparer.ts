import { Inject, Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { ChunkInput } from '@askdata/contracts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { BatchMeta, Bm25, Preparation, prepareBatch } from './batch-preparation';

/** A request to the preparation thread. */
export interface PreparationRequest {
  id: number;
  items: ChunkInput[];
  meta: BatchMeta;
  bm25: Bm25;
}

/** Its answer: the preparation, or why it failed. */
interface PreparationAnswer {
  id: number;
  result?: Preparation;
  error?: string;
}

/** The script of the preparation thread, if not the compiled one beside this module. */
export const PREPARATION_THREAD_SCRIPT = Symbol('PREPARATION_THREAD_SCRIPT');

/** A running preparation thread and the requests it has not answered. */
interface Thread {
  worker: Worker;
  waiting: Map<number, { resolve(p: Preparation): void; reject(e: Error): void }>;
}

/**
 * Prepares the PostgreSQL backend's index batches (`prepareBatch`: analysis, impacts, blocks, the rows' JSON) on a
 * thread of their own when INDEX_PREPARATION_THREAD is set, so that the service's event loop (searches, the bus, and in
 * standalone mode every other service and the database's statements) is not held by them while they run; otherwise,
 * or when running from sources (no compiled thread script), on the event loop, in slices. The thread starts with the
 * service. A thread that fails or exits fails the batches it held, which are retried, and the next batch starts a new
 * one.
 */
@Injectable()
export class BatchPreparer implements OnModuleInit, OnModuleDestroy {
  private readonly bm25: Bm25;
  private readonly script: string | null;
  private thread: Thread | null = null;
  private ids = 0;
  /** Whether the PostgreSQL index is the configured one (otherwise it only takes rebuilds, and the thread waits for one). */
  private readonly eager: boolean;

  constructor(
    @Inject(RETRIEVAL_CONFIG) config: Pick<RetrievalConfig, 'BM25_K1' | 'BM25_B' | 'INDEX_PREPARATION_THREAD'> & Partial<Pick<RetrievalConfig, 'SEARCH_BACKEND'>>,
    @Optional() @Inject(PREPARATION_THREAD_SCRIPT) script?: string,
  ) {
    this.bm25 = { k1: config.BM25_K1, b: config.BM25_B };
    this.eager = config.SEARCH_BACKEND !== 'qdrant';
    const compiled = join(__dirname, 'batch-preparation.worker.js');
    this.script = config.INDEX_PREPARATION_THREAD ? (script ?? (existsSync(compiled) ? compiled : null)) : null;
  }

  /** Whether batches are prepared on a thread of their own. */
  get threaded(): boolean {
    return this.script !== null;
  }

  /** The thread is started with the service, so the first batch does not wait for it. */
  onModuleInit(): void {
    if (this.eager && this.script && !this.thread) this.start(this.script);
  }

  prepare(items: ChunkInput[], meta: BatchMeta): Promise<Preparation> {
    if (!this.script) return prepareBatch(items, meta, this.bm25);
    const thread = this.thread ?? this.start(this.script);
    const id = ++this.ids;
    return new Promise<Preparation>((resolve, reject) => {
      thread.waiting.set(id, { resolve, reject });
      thread.worker.postMessage({ id, items, meta, bm25: this.bm25 } satisfies PreparationRequest);
    });
  }

  async onModuleDestroy(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    await thread?.worker.terminate();
  }

  private start(script: string): Thread {
    const thread: Thread = { worker: new Worker(script), waiting: new Map() };
    thread.worker.on('message', ({ id, result, error }: PreparationAnswer) => {
      const waiting = thread.waiting.get(id);
      thread.waiting.delete(id);
      if (error !== undefined || !result) waiting?.reject(new Error(`preparing an index batch failed: ${error ?? 'no result'}`));
      else waiting?.resolve(result);
    });
    const stopped = (why: string) => {
      if (this.thread === thread) this.thread = null;
      for (const w of thread.waiting.values()) w.reject(new Error(`the index preparation thread ${why}`));
      thread.waiting.clear();
    };
    thread.worker.on('error', (e) => stopped(`failed: ${e.message}`));
    thread.worker.on('exit', (code) => stopped(`exited (code ${code})`));
    this.thread = thread;
    return thread;
  }
}
