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

/** Where chunks are indexed and searched: PostgreSQL (BM25 in SQL) or Qdrant (sparse BM25 + dense, fused). */
export interface SearchIndex {
  readonly backend: string;
  /** Replaces all chunks of each item (an item with no chunks is removed). Idempotent. Returns chunks written. */
  replace(scope: Scope, items: ChunkInput[]): Promise<number>;
  /** Best items first, one row per item (its best chunk), never outside the scope, tenant and filters given. */
  search(query: SearchQuery): Promise<RetrievedChunk[]>;
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
