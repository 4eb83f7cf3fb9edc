import { ChunkInput, FieldFilter, RetrievedChunk, Scope } from '@askdata/contracts';
import { createHash } from 'node:crypto';

export interface SearchQuery {
  scope: Scope;
  text: string;
  /** Collection slugs to search; null means all of the project's. */
  collections: string[] | null;
  /** The tenant to restrict to (multi-tenant projects), or null. */
  tenant: number | null;
  filters: FieldFilter[];
  limit: number;
  /** The languages to analyze the question in: those of the project's chunks (and the question's, when given); English when absent. */
  languages?: string[];
}

/** A page of the items an index stores, and where the next page starts (null: none left). */
export interface StoredPage {
  items: ChunkInput[];
  next: string | null;
}

/**
 * Where chunks are indexed and searched: PostgreSQL (BM25 in SQL) or Qdrant (sparse BM25 + dense, fused). A project's
 * index is stored under a key (`scope.projectId` in `replace` and `search`): the project's id, or the key a rebuild
 * gave it (`IndexRebuilds`).
 */
export interface SearchIndex {
  readonly backend: string;
  /** Replaces all chunks of each item (an item with no chunks is removed). Idempotent. Returns chunks written. */
  replace(scope: Scope, items: ChunkInput[]): Promise<number>;
  /** Best items first, one row per item (its best chunk), never outside the scope, tenant and filters given. */
  search(query: SearchQuery): Promise<RetrievedChunk[]>;
  /** The items stored under a key, about `items` at a time from `cursor` (null: the start), as `replace` was given them. */
  scan(key: string, cursor: string | null, items: number): Promise<StoredPage>;
  /** The named items as stored under a key (service-side ids; one not stored comes back with no chunks). */
  read(key: string, itemIds: string[]): Promise<ChunkInput[]>;
  /** Chunks stored under a key. */
  count(key: string): Promise<number>;
  /** Removes everything stored under a key. */
  drop(key: string): Promise<void>;
}

/** A stored chunk, as both backends give it back to rebuild an index from. */
export type StoredChunk = Omit<ChunkInput, 'title' | 'chunks' | 'language'> & {
  /** Its item's title: kept with the first chunk (null: stored before titles were kept). */
  title: string | null;
  text: string;
  n: number;
  language: string;
};

/** Stored chunks (of whole items, any order) as the items `replace` was given; `itemIds` that have none come back empty. */
export function itemsOf(chunks: StoredChunk[], itemIds: string[] = []): ChunkInput[] {
  const byItem = new Map<string, StoredChunk[]>();
  for (const id of itemIds) byItem.set(id, []);
  for (const c of chunks) {
    const list = byItem.get(c.itemId);
    if (list) list.push(c);
    else byItem.set(c.itemId, [c]);
  }
  return [...byItem].map(([itemId, list]) => {
    list.sort((a, b) => a.n - b.n);
    const first = list[0];
    if (!first) return { itemId, clientItemId: '', collection: '', tenant: null, url: null, metadata: {}, title: '', chunks: [] };
    return {
      itemId,
      clientItemId: first.clientItemId,
      collection: first.collection,
      tenant: first.tenant,
      url: first.url,
      metadata: first.metadata ?? {},
      title: first.title ?? '',
      chunks: list.map((c) => c.text),
      language: first.language,
    };
  });
}

export const SEARCH_INDEX = Symbol('SEARCH_INDEX');

/** Deterministic chunk id from (item, chunk number): a UUIDv8 of their SHA-256, the same in every backend. */
export function chunkId(itemId: string, n: number): string {
  const h = createHash('sha256').update(`${itemId}:${n}`).digest();
  h[6] = 0x80 | (h[6] & 0x0f);
  h[8] = 0x80 | (h[8] & 0x3f);
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The text that is indexed for a chunk: the item's title is counted in every chunk, which weighs it up. */
export function indexedText(item: ChunkInput, chunk: string): string {
  return item.title ? `${item.title}\n${chunk}` : chunk;
}
