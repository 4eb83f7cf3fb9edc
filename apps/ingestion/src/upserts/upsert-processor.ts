import { Inject, Injectable } from '@nestjs/common';
import { ChunkInput, Scope, Subjects } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import { INGESTION_CONFIG } from '../ingestion.tokens';
import { IngestionConfig } from '../ingestion.config';
import { chunkText } from '../pipeline/chunk';
import { normalizeItem } from '../pipeline/normalize';
import { UpsertBatchPayload } from './upsert.entity';

/**
 * One attempt at a batch: items to catalog (system of record), then each item's chunks to retrieval, which
 * replaces whatever that item had before. Every step is idempotent, so an attempt may be repeated safely.
 */
@Injectable()
export class UpsertProcessor {
  constructor(
    private readonly bus: BusClient,
    @Inject(INGESTION_CONFIG) private readonly config: IngestionConfig,
  ) {}

  async process(upsertId: string, projectId: string, batch: UpsertBatchPayload): Promise<void> {
    const scope: Scope = { projectId, tenancy: batch.tenancy };
    // Catalog stores the items while their text is normalised and chunked here (that needs only the item ids it returns).
    const applying = this.bus.request(Subjects.catalog.batchApply, {
      scope,
      upsertId,
      collection: batch.collection,
      items: batch.items,
    });
    // Should chunking throw, the request's own failure must not go unhandled: it is awaited only below.
    applying.catch(() => undefined);
    const latest = new Map(batch.items.map((i) => [i.id, i]));
    const chunked = [...latest.values()].map((item) => {
      const { title, text } = normalizeItem(item.data);
      const body = title && !text.startsWith(title) ? `${title}\n${text}` : text;
      return { item, title, chunks: chunkText(body, { maxTokens: this.config.CHUNK_MAX_TOKENS, overlapTokens: this.config.CHUNK_OVERLAP_TOKENS }) };
    });
    const applied = await applying;
    const serviceIds = new Map(applied.items.map((i) => [i.item_id, i.id]));
    const docs: ChunkInput[] = chunked.map(({ item, title, chunks }) => {
      const itemId = serviceIds.get(item.id);
      if (!itemId) throw new Error(`catalog did not return item ${item.id}`);
      return {
        itemId,
        clientItemId: item.id,
        collection: applied.collection.slug,
        tenant: item.tenant,
        url: item.url,
        metadata: item.metadata,
        title,
        chunks,
      };
    });
    // The batches hold different items, so their order does not matter: INDEX_CONCURRENCY of them are in flight
    // at once, so that retrieval analyses one while it writes another.
    const batches: ChunkInput[][] = [];
    for (let i = 0; i < docs.length; i += this.config.INDEX_BATCH_ITEMS) batches.push(docs.slice(i, i + this.config.INDEX_BATCH_ITEMS));
    // After a failure no lane starts another batch, and the attempt fails once the requests in flight are done.
    let next = 0;
    let failed = false;
    const lane = async (): Promise<void> => {
      while (!failed && next < batches.length) {
        await this.bus.request(Subjects.retrieval.chunksReplace, { scope, items: batches[next++] }).catch((e: unknown) => {
          failed = true;
          throw e;
        });
      }
    };
    const lanes = await Promise.allSettled(Array.from({ length: Math.min(this.config.INDEX_CONCURRENCY, batches.length) }, lane));
    const failure = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failure) throw failure.reason;
  }
}
