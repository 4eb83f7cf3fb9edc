import { ENGLISH_STOPWORDS } from './stopwords';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stem = require('wink-porter2-stemmer') as (word: string) => string;

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
const cache = new Map<string, string>();

/** Snowball English (Porter2) stemming, memoized: the vocabulary is small next to the number of tokens. */
function stemmed(word: string): string {
  let s = cache.get(word);
  if (s === undefined) {
    s = stem(word);
    if (cache.size > 200000) cache.clear();
    cache.set(word, s);
  }
  return s;
}

/** The index term of a single word, or null for a stopword or a non-word. */
export function termOf(word: string): string | null {
  const w = word.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/’/g, "'");
  if (!w || w.length > 64 || ENGLISH_STOPWORDS.has(w)) return null;
  const base = w.endsWith("'s") ? w.slice(0, -2) : w;
  return base ? stemmed(base) : null;
}

/**
 * The one analyzer of the index, used at index and at query time: unicode words, lowercase, English stopwords
 * removed, Snowball English stemming.
 */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const word = m[0].includes('’') ? m[0].replace(/’/g, "'") : m[0];
    if (word.length > 64 || ENGLISH_STOPWORDS.has(word)) continue;
    const base = word.endsWith("'s") ? word.slice(0, -2) : word;
    if (base) out.push(stemmed(base));
  }
  return out;
}

/** Term frequencies of a text. */
export function termFrequencies(text: string): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of analyze(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

/** The distinct terms of a query: each counts once, however often it is repeated. */
export function queryTerms(text: string): string[] {
  return [...new Set(analyze(text))];
}
