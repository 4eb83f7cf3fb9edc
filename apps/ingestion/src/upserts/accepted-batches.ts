import { Injectable } from '@nestjs/common';
import { UpsertBatchPayload } from './upsert.entity';

/** Items of accepted batches kept at most (about 1.25 KB each in the ingestion benchmark: some 25 MB of text). */
export const KEPT_ITEMS = 20_000;

/**
 * The batches this process accepted and stored, kept until a worker of this process claims them, so that the worker
 * need not read back what it has just written: the database's copy stays the one that counts, and is read whenever
 * the batch is not here (another replica accepted it, it was dropped to stay within `KEPT_ITEMS`, or it is being
 * retried). A batch is kept only once its transaction has committed, as the JSON text stored would read back, and
 * dropped once claimed.
 */
@Injectable()
export class AcceptedBatches {
  /** In the order they were accepted, so the oldest are dropped first. */
  private readonly batches = new Map<string, UpsertBatchPayload>();
  private items = 0;

  keep(upsertId: string, batch: UpsertBatchPayload): void {
    if (batch.items.length > KEPT_ITEMS) return;
    this.batches.set(upsertId, batch);
    this.items += batch.items.length;
    for (const [id, kept] of this.batches) {
      if (this.items <= KEPT_ITEMS) break;
      this.batches.delete(id);
      this.items -= kept.items.length;
    }
  }

  /** The batch of an upsert, if it is kept here. */
  get(upsertId: string): UpsertBatchPayload | undefined {
    return this.batches.get(upsertId);
  }

  /** The batch of an upsert is no longer needed here. */
  drop(upsertId: string): void {
    const batch = this.batches.get(upsertId);
    if (!batch) return;
    this.batches.delete(upsertId);
    this.items -= batch.items.length;
  }
}
