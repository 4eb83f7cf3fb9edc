import { ENGLISH_STOPWORDS } from './stopwords';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stem = require('wink-porter2-stemmer') as (word: string) => string;

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** The index term of a single word, or null for a stopword or a non-word. */
export function termOf(word: string): string | null {
  const w = word.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  return (w && termOfToken(w)) || null;
}

/** Token -> term: the vocabulary is small next to the number of tokens. */
const tokenTerms = new Map<string, string>();

/**
 * The index term of a lowercase token, '' for none (a stopword, a word too long): apostrophes made straight, a
 * possessive 's dropped, Snowball English (Porter2) stemming; memoized.
 */
function termOfToken(token: string): string {
  let term = tokenTerms.get(token);
  if (term === undefined) {
    const word = token.includes('’') ? token.replace(/’/g, "'") : token;
    if (word.length > 64 || ENGLISH_STOPWORDS.has(word)) term = '';
    else {
      const base = word.endsWith("'s") ? word.slice(0, -2) : word;
      term = base ? stem(base) : '';
    }
    if (tokenTerms.size > 200000) tokenTerms.clear();
    tokenTerms.set(token, term);
  }
  return term;
}

/**
 * The one analyzer of the index, used at index and at query time: unicode words, lowercase, English stopwords
 * removed, Snowball English stemming.
 */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const token of text.toLowerCase().match(WORD) ?? []) {
    const term = termOfToken(token);
    if (term) out.push(term);
  }
  return out;
}

/** Term frequencies of a text. */
export function termFrequencies(text: string): Map<string, number> {
  const tf = new Map<string, number>();
  for (const token of text.toLowerCase().match(WORD) ?? []) {
    const term = termOfToken(token);
    if (term) tf.set(term, (tf.get(term) ?? 0) + 1);
  }
  return tf;
}

/** The distinct terms of a query: each counts once, however often it is repeated. */
export function queryTerms(text: string): string[] {
  return [...new Set(analyze(text))];
}
