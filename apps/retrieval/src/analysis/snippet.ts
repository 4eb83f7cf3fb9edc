import { analyze } from '@askdata/common';

/** The terms of the pieces of text snippets have looked at, per language: words repeat, analysing them does not. */
const memo = new Map<string, Map<string, readonly string[]>>();
const MEMO_KEPT = 100000;

/** Whether the last `termsOfPiece` analysed its piece (its terms are a new array) rather than found it analysed. */
let analysedNow = false;

function termsOfPiece(piece: string, language: string): readonly string[] {
  let kept = memo.get(language);
  if (!kept) memo.set(language, (kept = new Map<string, readonly string[]>()));
  let terms = kept.get(piece);
  analysedNow = terms === undefined;
  if (terms === undefined) {
    if (kept.size >= MEMO_KEPT) kept.clear();
    kept.set(piece, (terms = analyze(piece, language)));
  }
  return terms;
}

/**
 * A text cut into pieces (its words, cut every 40 characters where longer), each with its place in the text and, for
 * those that have any, its terms: what a snippet of the text needs, whatever the question.
 */
export interface Pieces {
  /** Where each piece starts in the text. */
  origins: Int32Array;
  /** Pieces are at most 40 characters (80 UTF-16 units). */
  lengths: Uint8Array;
  /** The pieces that have terms, ascending, and their terms. */
  termed: Int32Array;
  terms: Array<readonly string[]>;
  /** What they take in memory, roughly (`piecesBytes`). */
  bytes: number;
}

/** Whitespace runs as one space, none at the ends: the text a snippet is cut from. */
function cleaned(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The words of a text, and pieces of at most 40 characters of them, so that text written without spaces is cut too. */
const WORD = /\S+/g;
const LONG_WORD = /\S{1,40}/gu;

/** The pieces of `text`, its words analyzed in `language`. Linear in the length of the text. */
export function cut(text: string, language: string): Pieces {
  const origins: number[] = [];
  const lengths: number[] = [];
  const termed: number[] = [];
  const terms: Array<readonly string[]> = [];
  // Arrays of terms: one found analysed is shared with the texts that found it first; a new one of several terms (a
  // run of text without spaces, cut into words, seldom met twice) is counted here.
  let arrays = 0;
  const piece = (word: string, origin: number) => {
    const analyzed = termsOfPiece(word, language);
    if (analyzed.length) {
      termed.push(origins.length);
      terms.push(analyzed);
      if (analysedNow && analyzed.length > 1) arrays += 16 + 8 * analyzed.length + analyzed.reduce((n, t) => n + 16 + 2 * t.length, 0);
    }
    origins.push(origin);
    lengths.push(word.length);
  };
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    if (word.length <= 40) piece(word, m.index);
    else for (const part of word.matchAll(LONG_WORD)) piece(part[0], m.index + part.index);
  }
  return {
    origins: Int32Array.from(origins),
    lengths: Uint8Array.from(lengths),
    termed: Int32Array.from(termed),
    terms,
    bytes: 200 + origins.length * 5 + termed.length * 12 + arrays,
  };
}

/** The pieces' places in the cleaned text, for the snippet being cut (grown as needed). */
let starts = new Int32Array(1024);

/** What pieces take in memory, roughly: their typed arrays, a reference a piece with terms, and the arrays of terms they brought. */
export function piecesBytes(p: Pieces): number {
  return p.bytes;
}

/**
 * The passage of `text` (about `size` characters, cut at word boundaries) holding the most distinct query terms,
 * the earliest such passage winning ties, from the text's pieces (`cut`, or cut here in `language`), its whitespace
 * runs as single spaces. Linear in the length of the text. `size` is at least 80, the longest a piece can be.
 */
export function snippet(text: string, terms: string[], size = 240, language = 'en', pieces?: Pieces): string {
  if (!pieces && text.length <= size) return cleaned(text);
  const { origins, lengths, termed, terms: termsOf } = pieces ?? cut(text, language);
  const n = origins.length;
  // Each piece's place in the cleaned text: after the one before it, and a space when whitespace parts them (the
  // pieces of a long word do not part).
  if (starts.length < n) starts = new Int32Array(Math.max(n, starts.length * 2));
  for (let i = 1; i < n; i++) starts[i] = starts[i - 1] + lengths[i - 1] + (origins[i] > origins[i - 1] + lengths[i - 1] ? 1 : 0);
  // The cleaned text ends where its last piece does.
  if (n === 0 || starts[n - 1] + lengths[n - 1] <= size) return cleaned(text);
  const wanted = new Set(terms);
  const found: Array<string | null> = new Array<string | null>(n).fill(null);
  for (let k = 0; k < termed.length; k++) {
    const analyzed = termsOf[k];
    for (let a = 0; a < analyzed.length; a++) {
      if (wanted.has(analyzed[a])) {
        found[termed[k]] = analyzed[a];
        break;
      }
    }
  }
  const counts = new Map<string, number>();
  let best = { from: 0, to: 0, score: -1 };
  let j = 0;
  for (let i = 0; i < n; i++) {
    while (j < n && starts[j] + lengths[j] - starts[i] <= size) {
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
  const passage = text.slice(origins[best.from], origins[best.to] + lengths[best.to]).replace(/\s+/g, ' ');
  return `${best.from > 0 ? '…' : ''}${passage}${best.to < n - 1 ? '…' : ''}`;
}
