import { analyze } from '@askdata/common';

/** The terms of the pieces of text snippets have looked at, per language: words repeat, analysing them does not. */
const pieces = new Map<string, Map<string, readonly string[]>>();
const PIECES_KEPT = 100000;

function termsOfPiece(piece: string, language: string): readonly string[] {
  let memo = pieces.get(language);
  if (!memo) pieces.set(language, (memo = new Map<string, readonly string[]>()));
  let terms = memo.get(piece);
  if (terms === undefined) {
    if (memo.size >= PIECES_KEPT) memo.clear();
    memo.set(piece, (terms = analyze(piece, language)));
  }
  return terms;
}

/** A text cut into pieces, each with its place in the cleaned text and its terms: the same for every question. */
interface Pieces {
  language: string;
  clean: string;
  starts: Int32Array;
  ends: Int32Array;
  terms: Array<readonly string[]>;
}

/**
 * The texts snippets were last cut from (a hit's text is the same string while its row is kept, so a popular hit is
 * looked up, not cut again), least recently used first, up to `TEXTS_KEPT_CHARS` in all.
 */
const texts = new Map<string, Pieces>();
const TEXTS_KEPT_CHARS = 8_000_000;
let textsChars = 0;

/** Pieces of at most 40 characters, so that text written without spaces is cut too. */
const LONG_WORD = /\S{1,40}/gu;

function cut(text: string, language: string): Pieces {
  const clean = text.replace(/\s+/g, ' ').trim();
  const starts: number[] = [];
  const ends: number[] = [];
  const terms: Array<readonly string[]> = [];
  const piece = (word: string, start: number) => {
    starts.push(start);
    ends.push(start + word.length);
    terms.push(termsOfPiece(word, language));
  };
  // The text's words (single spaces between them now), a word of over 40 characters in pieces of 40.
  let start = 0;
  for (const word of clean.split(' ')) {
    if (word.length <= 40) piece(word, start);
    else for (const m of word.matchAll(LONG_WORD)) piece(m[0], start + (m.index ?? 0));
    start += word.length + 1;
  }
  return { language, clean, starts: Int32Array.from(starts), ends: Int32Array.from(ends), terms };
}

function piecesOf(text: string, language: string): Pieces {
  const found = texts.get(text);
  if (found) texts.delete(text);
  else textsChars += text.length;
  const pieces = found?.language === language ? found : cut(text, language);
  texts.set(text, pieces);
  for (const [oldest] of texts) {
    if (textsChars <= TEXTS_KEPT_CHARS) break;
    texts.delete(oldest);
    textsChars -= oldest.length;
  }
  return pieces;
}

/**
 * The passage of `text` (about `size` characters, cut at word boundaries) holding the most distinct query terms,
 * the earliest such passage winning ties; the text's words are analyzed in its `language`. Linear in the length of
 * the text.
 */
export function snippet(text: string, terms: string[], size = 240, language = 'en'): string {
  if (text.length <= size) {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (clean.length <= size) return clean;
  }
  const { clean, starts, ends, terms: termsOf } = piecesOf(text, language);
  if (clean.length <= size) return clean;
  const wanted = new Set(terms);
  const n = starts.length;
  const found: Array<string | null> = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const analyzed = termsOf[i];
    let term: string | null = null;
    for (let k = 0; k < analyzed.length; k++) {
      if (wanted.has(analyzed[k])) {
        term = analyzed[k];
        break;
      }
    }
    found[i] = term;
  }
  const counts = new Map<string, number>();
  let best = { from: 0, to: 0, score: -1 };
  let j = 0;
  for (let i = 0; i < n; i++) {
    while (j < n && ends[j] - starts[i] <= size) {
      const t = found[j];
      if (t) counts.set(t, (counts.get(t) ?? 0) + 1);
      j++;
    }
    if (counts.size > best.score) best = { from: i, to: Math.max(i, j - 1), score: counts.size };
    const t = found[i];
    if (t) {
      const c = (counts.get(t) ?? 1) - 1;
      if (c === 0) counts.delete(t);
      else counts.set(t, c);
    }
  }
  const from = starts[best.from];
  const to = ends[best.to];
  return `${from > 0 ? '…' : ''}${clean.slice(from, to)}${to < clean.length ? '…' : ''}`;
}
