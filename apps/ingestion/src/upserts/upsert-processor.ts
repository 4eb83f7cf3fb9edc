import { Inject, Injectable } from '@nestjs/common';
import { ChunkInput, Scope, Subjects, UpsertItemInput } from '@askdata/contracts';
import { BusClient, usualLanguage } from '@askdata/common';
import { INGESTION_CONFIG } from '../ingestion.tokens';
import { IngestionConfig } from '../ingestion.config';
import { ItemAnalysis } from '../pipeline/item-analysis';
import { UpsertBatchPayload } from './upsert.entity';
import { DeleteProcessor } from './delete-processor';

/** A claimed upsert: its id and the batch accepted with it. */
export interface ClaimedUpsert {
  upsertId: string;
  batch: UpsertBatchPayload;
}

/** What an attempt tells its worker as it goes. */
export interface ProcessHooks {
  indexing?: () => void;
  stored?: (upsertId: string) => void;
  removed?: (items: number) => Promise<void>;
}

/** Room left in a request to retrieval for its envelope (subject, request id, scope, headers). */
export const ENVELOPE_BYTES = 16 * 1024;

/**
 * One attempt at one upsert, or at several consecutive upserts of a project processed as one: items to catalog
 * (system of record), upsert by upsert in acceptance order, then each item's chunks to retrieval, which replaces
 * whatever that item had before; an item in several of the upserts is indexed once, as the latest of them has it.
 * Every step is idempotent, so an attempt may be repeated safely.
 */
@Injectable()
export class UpsertProcessor {
  constructor(
    private readonly bus: BusClient,
    @Inject(INGESTION_CONFIG) private readonly config: IngestionConfig,
    private readonly deletes: DeleteProcessor,
    private readonly analysis: ItemAnalysis,
  ) {}

  /**
   * `stored` is called with each upsert once catalog has stored its items; `indexing` once catalog has stored them
   * all, when their chunks start going to retrieval; `removed` with the items each round of a delete removed.
   */
  async process(projectId: string, upserts: ClaimedUpsert[], { indexing, stored, removed }: ProcessHooks = {}): Promise<void> {
    // A delete is claimed alone, never grouped with upserts.
    if (upserts[0]?.batch.delete) return this.deletes.process(projectId, upserts[0].batch, removed);
    // Each item's text, and its language when neither the item nor the collection gives one, before catalog
    // stores the items with their language.
    const normalized: Array<Array<{ item: UpsertItemInput; title: string; body: string; packed: string }>> = [];
    for (const { batch } of upserts) {
      // The last occurrence of an item id in a batch wins, as in catalog.
      const unique = [...new Map(batch.items.map((i) => [i.id, i])).values()];
      const toRead = unique.map((item) => ({ data: item.data, detect: !(item.language || batch.collection?.language) }));
      const read = await this.analysis.read(toRead);
      // An item whose language cannot be told (too short, mixed) is taken to be in the language most of its
      // upsert's items are in.
      const usual = usualLanguage(read.map((r) => r.detected));
      const items = unique.map((item, i) => {
        const language = read[i].detected ?? (toRead[i].detect ? usual : null);
        return { item: language ? { ...item, detected_language: language } : item, title: read[i].title, body: read[i].body, packed: read[i].packed };
      });
      normalized.push(items);
    }
    // Catalog stores the items while their text is chunked here (that needs only the item ids it returns).
    const applying = (async () => {
      const applied = [];
      for (const [k, { upsertId, batch }] of upserts.entries()) {
        const scope: Scope = { projectId, tenancy: batch.tenancy };
        // Each item's data goes packed: catalog stores it as it is.
        const items = normalized[k].map(({ item: { data: _data, ...item }, packed }) => ({ ...item, packed }));
        applied.push(await this.bus.request(Subjects.catalog.batchApply, { scope, upsertId, collection: batch.collection, items }));
        stored?.(upsertId);
      }
      return applied;
    })();
    // Should chunking throw, the requests' own failure must not go unhandled: it is awaited only below.
    applying.catch(() => undefined);
    const chunking = { maxTokens: this.config.CHUNK_MAX_TOKENS, overlapTokens: this.config.CHUNK_OVERLAP_TOKENS };
    // The upserts' bodies in one call: a group of many small upserts does not wait on a call per upsert.
    const chunks = await this.analysis.chunk(
      normalized.flatMap((items) => items.map((n) => n.body)),
      chunking,
    );
    let body = 0;
    const chunked = normalized.map((items) => items.map(({ item, title }) => ({ item, title, chunks: chunks[body++] })));
    const applied = await applying;
    indexing?.();
    // Service-side item id -> what the index gets: a later upsert's version of an item replaces an earlier one's.
    const latest = new Map<string, ChunkInput>();
    chunked.forEach((items, k) => {
      const stored = new Map(applied[k].items.map((i) => [i.item_id, i]));
      for (const { item, title, chunks } of items) {
        const itemId = stored.get(item.id)?.id;
        if (!itemId) throw new Error(`catalog did not return item ${item.id}`);
        latest.set(itemId, {
          itemId,
          clientItemId: item.id,
          collection: applied[k].collection.slug,
          tenant: item.tenant,
          url: item.url,
          metadata: item.metadata,
          title,
          chunks,
          // Text whose language could not be told is analyzed as English, as all text was before languages.
          language: stored.get(item.id)?.language ?? 'en',
        });
      }
    });
    const scope: Scope = { projectId, tenancy: upserts[upserts.length - 1].batch.tenancy };
    const batches = await this.indexBatches([...latest.values()]);
    // The batches hold different items, so their order does not matter: INDEX_CONCURRENCY of them are in flight
    // at once, so that retrieval analyses one while it writes another.
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

  /** Requests to retrieval (`indexBatches`): over NATS, of at most INDEX_BATCH_BYTES each (0: what the bus carries). */
  private async indexBatches(docs: ChunkInput[]): Promise<ChunkInput[][]> {
    const limit = await this.bus.messageBytesLimit();
    return indexBatches(docs, this.config.INDEX_BATCH_ITEMS, limit === null ? null : this.config.INDEX_BATCH_BYTES || limit);
  }
}

/**
 * Items in requests to retrieval: up to `items` each and, when `bytes` is given, up to `bytes` of JSON with the
 * request's envelope (an item larger alone goes alone). A request larger than the NATS server's `max_payload` goes
 * through the bus's object store.
 */
export function indexBatches(docs: ChunkInput[], items: number, bytes: number | null): ChunkInput[][] {
  const room = bytes === null ? Infinity : Math.max(1, bytes - ENVELOPE_BYTES);
  const batches: ChunkInput[][] = [];
  let current: ChunkInput[] = [];
  let size = 0;
  for (const doc of docs) {
    const docSize = bytes === null ? 0 : Buffer.byteLength(JSON.stringify(doc)) + 1;
    if (current.length && (current.length >= items || size + docSize > room)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(doc);
    size += docSize;
  }
  if (current.length) batches.push(current);
  return batches;
}
