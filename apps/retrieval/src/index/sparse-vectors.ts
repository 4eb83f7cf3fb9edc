import { GRAM_WEIGHT, isGram, termFrequencies } from '@askdata/common';

/** A sparse vector as Qdrant takes it: unique indices, one value each. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

export interface Bm25Parameters {
  k1: number;
  b: number;
  /** The average chunk length (in terms) assumed for length normalisation. */
  avgLength: number;
}

const utf8 = new TextEncoder();

/** The sparse-vector index of a term: FNV-1a over its UTF-8 bytes, an unsigned 32-bit integer, stable forever. */
export function termIndex(term: string): number {
  let h = 0x811c9dc5;
  for (const byte of utf8.encode(term)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A chunk's BM25 document side: per term, tf·(k1+1) / (tf + k1·(1 − b + b·length/avgLength)), times `GRAM_WEIGHT`
 * for a run of characters of a word (length counts words only). Qdrant multiplies it by the term's IDF over the
 * collection (the `idf` modifier), which makes the dot product with a query of ones the BM25 score. Terms whose
 * indices collide are counted as one term.
 */
export function documentVector(text: string, p: Bm25Parameters, language = 'en'): SparseVector {
  const tf = new Map<number, { f: number; weight: number }>();
  let length = 0;
  for (const [term, f] of termFrequencies(text, language)) {
    const i = termIndex(term);
    const gram = isGram(term);
    const seen = tf.get(i);
    if (seen) seen.f += f;
    else tf.set(i, { f, weight: gram ? GRAM_WEIGHT : 1 });
    if (!gram) length += f;
  }
  const norm = p.k1 * (1 - p.b + (p.b * length) / p.avgLength);
  const indices: number[] = [];
  const values: number[] = [];
  for (const [i, { f, weight }] of tf) {
    indices.push(i);
    values.push((weight * f * (p.k1 + 1)) / (f + norm));
  }
  return { indices, values };
}

/** The query side: each distinct query term (`queryTerms`) once, with weight 1 (its IDF is applied by Qdrant). */
export function queryVector(terms: string[]): SparseVector {
  const indices = [...new Set(terms.map(termIndex))];
  return { indices, values: indices.map(() => 1) };
}
