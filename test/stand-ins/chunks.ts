import { RetrievedChunk } from '@askdata/contracts';

/**
 * A retrieved chunk of item `item-<n>` in collection `docs`, as the retrieval service returns it; `chunk` is the
 * chunk's number within its item, `score` its retrieval score (ties by default).
 */
export function chunkFixture(n: number, text: string, options: { chunk?: number; score?: number } = {}): RetrievedChunk {
  const chunk = options.chunk ?? 0;
  const hex = (v: number, width: number) => v.toString(16).padStart(width, '0');
  return {
    id: `0190f000-${hex(chunk, 4)}-7000-8000-${hex(n, 12)}`,
    item_id: `item-${n}`,
    collection: 'docs',
    tenant: null,
    url: `https://example.com/items/${n}`,
    metadata: {},
    score: options.score ?? 1,
    snippet: text.length > 80 ? `${text.slice(0, 80)}…` : text,
    text,
    chunk,
  };
}
