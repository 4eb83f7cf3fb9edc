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

/** Pieces of at most 40 characters, so that text written without spaces is cut too. */
const LONG_WORD = /\S{1,40}/gu;

/**
 * The passage of `text` (about `size` characters, cut at word boundaries) holding the most distinct query terms,
 * the earliest such passage winning ties; the text's words are analyzed in its `language`. Linear in the length of
 * the text.
 */
export function snippet(text: string, terms: string[], size = 240, language = 'en'): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= size) return clean;
  const wanted = new Set(terms);
  const starts: number[] = [];
  const ends: number[] = [];
  const found: Array<string | null> = [];
  const piece = (word: string, start: number) => {
    const analyzed = termsOfPiece(word, language);
    let term: string | null = null;
    for (let k = 0; k < analyzed.length; k++) {
      if (wanted.has(analyzed[k])) {
        term = analyzed[k];
        break;
      }
    }
    starts.push(start);
    ends.push(start + word.length);
    found.push(term);
  };
  // The text's words (single spaces between them now), a word of over 40 characters in pieces of 40.
  let start = 0;
  for (const word of clean.split(' ')) {
    if (word.length <= 40) piece(word, start);
    else for (const m of word.matchAll(LONG_WORD)) piece(m[0], start + (m.index ?? 0));
    start += word.length + 1;
  }
  const counts = new Map<string, number>();
  let best = { from: 0, to: 0, score: -1 };
  let j = 0;
  for (let i = 0; i < starts.length; i++) {
    while (j < starts.length && ends[j] - starts[i] <= size) {
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
