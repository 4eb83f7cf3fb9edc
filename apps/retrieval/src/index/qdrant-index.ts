// Over 250 lines: one class, the Qdrant adapter and its point and payload shapes; splitting would scatter one wire
// protocol.
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Schemas } from '@qdrant/js-client-rest';
import { ChunkInput, RetrievedChunk, Scope } from '@askdata/contracts';
import { queryTerms, ServiceError } from '@askdata/common';
import { snippet } from '../analysis/snippet';
import { EMBEDDINGS, EmbeddingProvider } from '../embeddings/embedding-provider';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { QdrantConnection, qdrantStatus } from './qdrant-connection';
import { indexTypeOf, metadataKey, PAYLOAD, PayloadIndexType, searchFilter, tenantValue } from './qdrant-filter';
import { chunkId, indexedText, itemsOf, SearchIndex, SearchQuery, StoredPage } from './search-index';
import { Bm25Parameters, documentVector, queryVector } from './sparse-vectors';
import { retrievalMetrics } from '../retrieval.metrics';

const SPARSE = 'bm25';
const DENSE = 'dense';
const UPSERT_BATCH = 256;

/** What a point's payload holds: everything a search hit needs, and the fields filters and deletions use. */
interface ChunkPayload {
  item: string;
  item_id: string;
  collection: string;
  tenant?: string;
  url: string | null;
  metadata: Record<string, unknown>;
  text: string;
  chunk: number;
  /** The language its text was analyzed in; English for points written before languages were kept. */
  language?: string;
  /** Its item's title, on the first chunk (absent: written before titles were kept). */
  title?: string;
}

interface CollectionState {
  /** Size of the dense vectors, or null when the collection has none. */
  dense: number | null;
  /** Payload fields indexed (or being indexed) by this process. */
  indexed: Set<string>;
}

/**
 * The index in Qdrant: one collection per project, a point per chunk (id derived from item and chunk number),
 * a sparse BM25 vector whose IDF Qdrant applies (the `idf` modifier), and a dense vector when an embedding
 * provider is configured. Searches use the Query API grouped by item (its best chunk), sparse alone or sparse
 * and dense prefetched and fused with RRF; tenant, collection and metadata conditions are the query's filter.
 */
@Injectable()
export class QdrantIndex implements SearchIndex {
  readonly backend = 'qdrant';
  private readonly logger = new Logger('QdrantIndex');
  private readonly collections = new Map<string, Promise<CollectionState>>();
  private readonly bm25: Bm25Parameters;

  constructor(
    private readonly qdrant: QdrantConnection,
    @Inject(RETRIEVAL_CONFIG) config: RetrievalConfig,
    @Optional() @Inject(EMBEDDINGS) private readonly embeddings: EmbeddingProvider | null = null,
  ) {
    this.bm25 = { k1: config.BM25_K1, b: config.BM25_B, avgLength: config.BM25_AVG_LENGTH };
  }

  /** The Qdrant collection of a project. */
  static collectionName(projectId: string): string {
    return `askdata_${projectId.replace(/-/g, '')}`;
  }

  /**
   * Upserts the items' chunks (same ids as before for the same chunk numbers), then deletes the chunks beyond
   * each item's new count: a replaced item is never missing from the index, and repeating a call changes nothing.
   */
  async replace(scope: Scope, items: ChunkInput[]): Promise<number> {
    const name = QdrantIndex.collectionName(scope.projectId);
    const points = items.flatMap((item) => item.chunks.map((text, n) => ({ id: chunkId(item.itemId, n), indexed: indexedText(item, text), payload: payloadOf(item, text, n) })));
    const dense = this.embeddings && points.length ? await this.embeddings.embedDocuments(points.map((p) => p.indexed)) : null;
    if (points.length) {
      await this.collection(name, dense?.[0].length ?? null);
      for (let i = 0; i < points.length; i += UPSERT_BATCH) {
        const batch = points.slice(i, i + UPSERT_BATCH).map((p, j) => ({
          id: p.id,
          vector: {
            [SPARSE]: documentVector(p.indexed, this.bm25, p.payload.language),
            ...(dense ? { [DENSE]: dense[i + j] } : {}),
          },
          payload: p.payload as unknown as Record<string, unknown>,
        }));
        try {
          await this.qdrant.client.upsert(name, { wait: true, points: batch });
        } catch (e) {
          if (qdrantStatus(e) !== 404) throw this.qdrant.failure('store chunks', e);
          // The collection was deleted since this process last looked (to rebuild it): make it again.
          await this.collection(name, dense?.[0].length ?? null, true);
          await this.qdrant.call('store chunks', (c) => c.upsert(name, { wait: true, points: batch }));
        }
      }
    }
    if (!items.length) return 0;
    const byCount = new Map<number, string[]>();
    for (const item of items) byCount.set(item.chunks.length, [...(byCount.get(item.chunks.length) ?? []), item.itemId]);
    const stale: Schemas['Filter'] = {
      should: [...byCount].map(([count, ids]) => ({
        must: [
          { key: PAYLOAD.item, match: { any: [...new Set(ids)] } },
          { key: PAYLOAD.chunk, range: { gte: count } },
        ],
      })),
    };
    try {
      await this.qdrant.client.delete(name, { wait: true, filter: stale });
    } catch (e) {
      // A 404 when nothing was ever stored for this project: there is nothing to delete.
      if (qdrantStatus(e) !== 404 || points.length) throw this.qdrant.failure('delete old chunks', e);
    }
    return points.length;
  }

  async search(q: SearchQuery): Promise<RetrievedChunk[]> {
    const stop = retrievalMetrics.retrievalDuration.startTimer({ backend: this.backend });
    try {
      const terms = queryTerms(q.text, q.languages ?? 'en');
      if (terms.length === 0 || q.collections?.length === 0) return [];
      const name = QdrantIndex.collectionName(q.scope.projectId);
      const filter = searchFilter(q.tenant, q.collections, q.filters);
      const sparse = queryVector(terms);
      const request = this.embeddings
        ? {
            prefetch: [
              { query: sparse, using: SPARSE, filter, limit: candidates(q.limit) },
              { query: await this.embeddings.embedQuery(q.text), using: DENSE, filter, limit: candidates(q.limit) },
            ],
            query: { fusion: 'rrf' as const },
          }
        : { query: sparse, using: SPARSE };
      let groups: Schemas['PointGroup'][];
      try {
        ({ groups } = await this.qdrant.client.queryGroups(name, {
          ...request,
          filter,
          group_by: PAYLOAD.item,
          group_size: 1,
          limit: q.limit,
          with_payload: true,
        }));
      } catch (e) {
        if (qdrantStatus(e) === 404) return []; // no collection: nothing was indexed in this project yet
        throw this.qdrant.failure('search', e);
      }
      this.indexFilterFields(name, q);
      return groups
        .map((g) => g.hits[0])
        .filter((hit) => hit?.payload)
        .map((hit) => hitOf(hit.payload as unknown as ChunkPayload, hit.score, terms))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    } finally {
      stop();
    }
  }

  async scan(key: string, cursor: string | null, items: number): Promise<StoredPage> {
    const name = QdrantIndex.collectionName(key);
    let page: Schemas['ScrollResult'];
    try {
      page = await this.qdrant.client.scroll(name, {
        limit: items,
        with_payload: [PAYLOAD.item],
        with_vector: false,
        ...(cursor !== null ? { offset: JSON.parse(cursor) as string | number } : {}),
      });
    } catch (e) {
      if (qdrantStatus(e) === 404) return { items: [], next: null };
      throw this.qdrant.failure('read stored chunks', e);
    }
    // Points come in id order, an item's chunks scattered: each item seen is read whole (one seen twice is read twice).
    const ids = [...new Set(page.points.map((p) => String((p.payload as Record<string, unknown> | null)?.[PAYLOAD.item])))];
    const next = page.next_page_offset;
    return { items: await this.read(key, ids), next: next === null || next === undefined ? null : JSON.stringify(next) };
  }

  async read(key: string, itemIds: string[]): Promise<ChunkInput[]> {
    if (!itemIds.length) return [];
    const name = QdrantIndex.collectionName(key);
    const chunks: ChunkPayload[] = [];
    let offset: Schemas['ExtendedPointId'] | null | undefined;
    do {
      let page: Schemas['ScrollResult'];
      try {
        page = await this.qdrant.client.scroll(name, {
          filter: { must: [{ key: PAYLOAD.item, match: { any: itemIds } }] },
          limit: UPSERT_BATCH,
          with_payload: true,
          with_vector: false,
          ...(offset !== undefined && offset !== null ? { offset } : {}),
        });
      } catch (e) {
        if (qdrantStatus(e) === 404) break;
        throw this.qdrant.failure('read stored chunks', e);
      }
      for (const p of page.points) chunks.push(p.payload as unknown as ChunkPayload);
      offset = page.next_page_offset as Schemas['ExtendedPointId'] | null | undefined;
    } while (offset !== null && offset !== undefined);
    return itemsOf(
      chunks.map((p) => ({
        itemId: p.item,
        clientItemId: p.item_id,
        collection: p.collection,
        tenant: p.tenant !== undefined ? Number(p.tenant) : null,
        url: p.url ?? null,
        metadata: p.metadata ?? {},
        title: p.title ?? null,
        text: p.text,
        n: p.chunk,
        language: p.language ?? 'en',
      })),
      itemIds,
    );
  }

  async count(key: string): Promise<number> {
    try {
      return (await this.qdrant.client.count(QdrantIndex.collectionName(key), { exact: true })).count;
    } catch (e) {
      if (qdrantStatus(e) === 404) return 0;
      throw this.qdrant.failure('count stored chunks', e);
    }
  }

  async drop(key: string): Promise<void> {
    const name = QdrantIndex.collectionName(key);
    this.collections.delete(name);
    try {
      await this.qdrant.client.deleteCollection(name);
    } catch (e) {
      if (qdrantStatus(e) !== 404) throw this.qdrant.failure('delete a collection', e);
    }
  }

  /**
   * Creates the project's collection on first use, or checks that the existing one fits the configuration. What
   * this process learnt about a collection is remembered; `fresh` looks again.
   */
  private async collection(name: string, denseSize: number | null, fresh = false): Promise<CollectionState> {
    let state = fresh ? undefined : this.collections.get(name);
    const remembered = state !== undefined;
    if (!state) {
      state = this.prepare(name, denseSize);
      this.collections.set(name, state);
      state.catch(() => this.collections.delete(name));
    }
    const s = await state;
    if (denseSize !== null && s.dense !== denseSize) {
      // It may have been deleted and made again since: look once more before refusing.
      if (remembered) return this.collection(name, denseSize, true);
      throw ServiceError.unavailable(
        s.dense === null
          ? `The Qdrant collection ${name} was created without dense vectors; an embedding provider is configured now. Delete the collection and re-send the items to index them with embeddings.`
          : `The Qdrant collection ${name} holds dense vectors of ${s.dense} dimensions; the embedding model returns ${denseSize}. Delete the collection and re-send the items, or configure the model it was built with.`,
      );
    }
    return s;
  }

  private async prepare(name: string, denseSize: number | null): Promise<CollectionState> {
    const { exists } = await this.qdrant.call('look up a collection', (c) => c.collectionExists(name));
    if (!exists) {
      try {
        await this.qdrant.client.createCollection(name, {
          sparse_vectors: { [SPARSE]: { modifier: 'idf' } },
          ...(denseSize !== null ? { vectors: { [DENSE]: { size: denseSize, distance: 'Cosine' } } } : {}),
        });
        this.logger.log(`created Qdrant collection ${name}${denseSize !== null ? ` (dense vectors of ${denseSize} dimensions)` : ''}`);
      } catch (e) {
        // Another replica created it first.
        if (qdrantStatus(e) !== 409) throw this.qdrant.failure('create a collection', e);
      }
    }
    const info = await this.qdrant.call('read a collection', (c) => c.getCollection(name));
    const sparse = info.config.params.sparse_vectors?.[SPARSE];
    if (!sparse || sparse.modifier !== 'idf') {
      throw ServiceError.unavailable(`The Qdrant collection ${name} has no sparse vector "${SPARSE}" with the idf modifier; it was not made by this service.`);
    }
    const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
    const state: CollectionState = { dense: vectors?.[DENSE]?.size ?? null, indexed: new Set(Object.keys(info.payload_schema ?? {})) };
    const wanted: Array<[string, Schemas['PayloadFieldSchema']]> = [
      [PAYLOAD.tenant, { type: 'keyword', is_tenant: true }],
      [PAYLOAD.collection, 'keyword'],
      [PAYLOAD.item, 'keyword'],
      [PAYLOAD.chunk, 'integer'],
    ];
    for (const [field, schema] of wanted) {
      if (state.indexed.has(field)) continue;
      await this.qdrant.call(`index the ${field} field`, (c) => c.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true }));
      state.indexed.add(field);
    }
    return state;
  }

  /** Metadata fields get a payload index the first time a filter uses them (in the background: filters work without). */
  private indexFilterFields(name: string, q: SearchQuery): void {
    if (!q.filters.length) return;
    let state = this.collections.get(name);
    if (!state) {
      state = this.prepare(name, null);
      this.collections.set(name, state);
      state.catch(() => this.collections.delete(name));
    }
    void state
      .then(async (s) => {
        for (const f of q.filters) {
          const key = metadataKey(f.field);
          if (s.indexed.has(key)) continue;
          s.indexed.add(key);
          const type: PayloadIndexType = indexTypeOf(f);
          await this.qdrant.call(`index the metadata field ${f.field}`, (c) => c.createPayloadIndex(name, { field_name: key, field_schema: type, wait: false }));
        }
      })
      .catch((e: Error) => this.logger.warn(e.message));
  }
}

/** Chunks fetched per branch before fusion: enough for `limit` distinct items when items have several chunks. */
function candidates(limit: number): number {
  return Math.min(1000, Math.max(50, limit * 5));
}

function payloadOf(item: ChunkInput, text: string, n: number): ChunkPayload {
  return {
    item: item.itemId,
    item_id: item.clientItemId,
    collection: item.collection,
    ...(item.tenant !== null ? { tenant: tenantValue(item.tenant) } : {}),
    url: item.url,
    metadata: item.metadata ?? {},
    text,
    chunk: n,
    language: item.language ?? 'en',
    ...(n === 0 ? { title: item.title } : {}),
  };
}

function hitOf(p: ChunkPayload, score: number, terms: string[]): RetrievedChunk {
  return {
    id: p.item,
    item_id: p.item_id,
    collection: p.collection,
    tenant: p.tenant !== undefined ? Number(p.tenant) : null,
    url: p.url ?? null,
    metadata: p.metadata ?? {},
    score: Math.round(score * 10000) / 10000,
    snippet: snippet(p.text, terms, undefined, p.language),
    text: p.text,
    chunk: p.chunk,
    language: p.language ?? 'en',
  };
}
