import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { ThreadCalls } from '@askdata/common';
import { join } from 'node:path';
import { IngestionConfig } from '../ingestion.config';
import { INGESTION_CONFIG } from '../ingestion.tokens';
import { ChunkOptions } from './chunk';
import { chunkBodies, ItemToRead, ReadItem, readItems } from './item-reading';

/** A request to the analysis thread: items to read, or bodies to chunk. */
export type AnalysisRequest = { read: ItemToRead[] } | { chunk: string[]; options: ChunkOptions };

/** The script of the analysis thread, if not the compiled one beside this module. */
export const ANALYSIS_THREAD_SCRIPT = Symbol('ANALYSIS_THREAD_SCRIPT');

/**
 * Ingestion's work on items' text (`readItems`: normalising, language detection; `chunkBodies`) on a thread of its
 * own when INGEST_ANALYSIS_THREAD is set, so that the process's event loop (the bus and, in standalone mode, every
 * other service's requests) is not held by it; otherwise, or when running from sources (no compiled thread script),
 * on the event loop, in slices. A thread that fails, exits, or owes answers and gives none for
 * INGEST_ANALYSIS_TIMEOUT_MS (then it is stopped) fails the attempts it held, which are retried.
 */
@Injectable()
export class ItemAnalysis implements OnModuleInit, OnApplicationShutdown {
  private readonly thread: ThreadCalls<AnalysisRequest, ReadItem[] | string[][]> | null;

  constructor(
    @Inject(INGESTION_CONFIG) config: Pick<IngestionConfig, 'INGEST_ANALYSIS_THREAD' | 'INGEST_ANALYSIS_TIMEOUT_MS'>,
    @Optional() @Inject(ANALYSIS_THREAD_SCRIPT) script?: string,
  ) {
    this.thread = ThreadCalls.optional(config.INGEST_ANALYSIS_THREAD, join(__dirname, 'item-analysis.worker.js'), script, {
      failed: "reading items' text failed",
      thread: 'the item analysis thread',
      hungMs: config.INGEST_ANALYSIS_TIMEOUT_MS,
    });
  }

  /** Whether the work runs on a thread of its own. */
  get threaded(): boolean {
    return this.thread !== null;
  }

  /** The thread is started with the service, so the first upsert does not wait for it. */
  onModuleInit(): void {
    this.thread?.start();
  }

  read(items: ItemToRead[]): Promise<ReadItem[]> {
    return this.thread ? (this.thread.call({ read: items }) as Promise<ReadItem[]>) : readItems(items);
  }

  chunk(bodies: string[], options: ChunkOptions): Promise<string[][]> {
    return this.thread ? (this.thread.call({ chunk: bodies, options }) as Promise<string[][]>) : chunkBodies(bodies, options);
  }

  /**
   * Stopped last: a worker shutting down finishes the attempts it holds first (`beforeApplicationShutdown`), and
   * they need the thread until then.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.thread?.stop();
  }
}
