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

/**
 * The passage of `text` (about `size` characters, cut at word boundaries) holding the most distinct query terms,
 * the earliest such passage winning ties; the text's words are analyzed in its `language`. Linear in the length of
 * the text.
 */
export function snippet(text: string, terms: string[], size = 240, language = 'en'): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= size) return clean;
  const wanted = new Set(terms);
  const words: Array<{ start: number; end: number; term: string | null }> = [];
  // Pieces of at most 40 characters, so that text written without spaces is cut too.
  for (const m of clean.matchAll(/\S{1,40}/gu)) {
    const t = termsOfPiece(m[0], language).find((term) => wanted.has(term)) ?? null;
    words.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, term: t });
  }
  const counts = new Map<string, number>();
  let best = { from: 0, to: 0, score: -1 };
  let j = 0;
  for (let i = 0; i < words.length; i++) {
    while (j < words.length && words[j].end - words[i].start <= size) {
      const t = words[j].term;
      if (t) counts.set(t, (counts.get(t) ?? 0) + 1);
      j++;
    }
    if (counts.size > best.score) best = { from: i, to: Math.max(i, j - 1), score: counts.size };
    const t = words[i].term;
    if (t) {
      const c = (counts.get(t) ?? 1) - 1;
      if (c === 0) counts.delete(t);
      else counts.set(t, c);
    }
  }
  const start = words[best.from].start;
  const end = words[best.to].end;
  return `${start > 0 ? '…' : ''}${clean.slice(start, end)}${end < clean.length ? '…' : ''}`;
}
