import { analyze } from '@askdata/common';

/**
 * A piece's terms and their hashes (`termHash`), with the count and the first hash also on the object itself: a
 * snippet reads them without reaching into the arrays, a fifth of its time on SciFact (`bench/snippets.ts`).
 */
export interface Analysed {
  terms: readonly string[];
  count: number;
  first: number;
  hashes: readonly number[];
}

/**
 * Analysed pieces by their text: open addressing on the piece's FNV-1a hash (`termHash`), which `cut` computes as it
 * scans the text, so that a piece is looked up without being copied out of its text first. Grows by doubling, kept at
 * most half full.
 */
class PieceTable {
  private keys: string[] = [];
  private hashes = new Int32Array(0);
  private values: Array<Analysed | undefined> = [];
  private mask = -1;
  size = 0;

  constructor(slots = 1024) {
    this.allocate(slots);
  }

  /** The analysed piece `source[start, end)` whose hash is `hash`, if kept. */
  find(source: string, start: number, end: number, hash: number): Analysed | undefined {
    const length = end - start;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const value = this.values[slot];
      if (value === undefined) return undefined;
      if (this.hashes[slot] !== hash) continue;
      const key = this.keys[slot];
      if (key.length !== length) continue;
      let k = 0;
      while (k < length && key.charCodeAt(k) === source.charCodeAt(start + k)) k++;
      if (k === length) return value;
    }
  }

  /** Keeps a piece not kept yet. */
  add(piece: string, hash: number, value: Analysed): void {
    if ((this.size + 1) * 2 > this.values.length) {
      const { keys, hashes, values } = this;
      this.allocate(values.length * 2);
      values.forEach((kept, slot) => kept && this.place(keys[slot], hashes[slot], kept));
    }
    this.place(piece, hash, value);
    this.size++;
  }

  private place(piece: string, hash: number, value: Analysed): void {
    let slot = hash & this.mask;
    while (this.values[slot] !== undefined) slot = (slot + 1) & this.mask;
    this.keys[slot] = piece;
    this.hashes[slot] = hash;
    this.values[slot] = value;
  }

  private allocate(slots: number): void {
    this.keys = new Array<string>(slots).fill('');
    this.hashes = new Int32Array(slots);
    this.values = new Array<Analysed | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }
}

/**
 * The terms of the pieces of text snippets have looked at, per language: words repeat, analysing them does not. Two
 * generations of at most `MEMO_KEPT` each: when the newer is full, the older is let go and the newer takes its place,
 * and a word found in the older moves to the newer, so the words in use stay (a vocabulary larger than one generation,
 * as a corpus of 100,000 abstracts has, no longer empties the memo of every word at once).
 */
const memo = new Map<string, { now: PieceTable; before: PieceTable }>();
const MEMO_KEPT = 65536;

/** Whether the last `analysedPiece` analysed its piece rather than found it analysed. */
let analysedNow = false;

/** The memo of a language's analysed pieces. */
function memoOf(language: string): { now: PieceTable; before: PieceTable } {
  let kept = memo.get(language);
  if (!kept) memo.set(language, (kept = { now: new PieceTable(), before: new PieceTable() }));
  return kept;
}

/** The piece `source[start, end)` analysed in `language` (`hash`: its `termHash`), from the memo when it is there. */
function analysedPiece(source: string, start: number, end: number, hash: number, language: string, kept: { now: PieceTable; before: PieceTable }): Analysed {
  let analysed = kept.now.find(source, start, end, hash);
  analysedNow = false;
  if (analysed === undefined) {
    analysed = kept.before.find(source, start, end, hash);
    const piece = source.slice(start, end);
    if (analysed === undefined) {
      analysedNow = true;
      const terms = analyze(piece, language);
      const hashes = terms.map(termHash);
      analysed = { terms, count: terms.length, first: hashes[0] ?? 0, hashes };
    }
    if (kept.now.size >= MEMO_KEPT) {
      kept.before = kept.now;
      kept.now = new PieceTable();
    }
    kept.now.add(piece, hash, analysed);
  }
  return analysed;
}

/**
 * A term's 32-bit FNV-1a hash over its UTF-16 units, kept with each analysed word: a snippet compares a piece's
 * hashes, read with its count of terms, against the query's instead of looking up every term of its text (strings
 * scattered through the heap), and confirms a piece whose hash matches on the term itself.
 */
function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  return h | 0;
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
  /** The pieces that have terms, ascending, and their terms as analysed (shared with the memo). */
  termed: Int32Array;
  analysed: Analysed[];
  /** What they take in memory, roughly (`piecesBytes`). */
  bytes: number;
}

/** Whitespace runs as one space, none at the ends: the text a snippet is cut from. */
function cleaned(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Pieces of at most 40 characters of a word longer than that, so that text written without spaces is cut too. */
const LONG_WORD = /\S{1,40}/gu;

/** Whether a UTF-16 unit is whitespace as a regular expression's `\s` has it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The pieces being cut (grown as needed): their places, lengths and which have terms, copied out when done. */
let cutOrigins = new Int32Array(1024);
let cutLengths = new Uint8Array(1024);
let cutTermed = new Int32Array(1024);

/**
 * The pieces of `text`, its words (runs of non-whitespace) analyzed in `language`. Linear in the length of the text:
 * its words are found by scanning its character codes, each analysed word looked up in the memo.
 */
export function cut(text: string, language: string): Pieces {
  const kept = memoOf(language);
  const analysed: Analysed[] = [];
  let n = 0;
  let m = 0;
  // Analysed words: one found analysed is shared with the texts that found it first; a new one of several terms (a run
  // of text without spaces, cut into words, seldom met twice) is counted here.
  let several = 0;
  /** The piece `source[start, end)` (`hash`: its `termHash`), at `origin` in the text. */
  const piece = (source: string, start: number, end: number, hash: number, origin: number) => {
    const found = analysedPiece(source, start, end, hash, language, kept);
    if (n === cutOrigins.length) {
      cutOrigins = grown(cutOrigins, new Int32Array(n * 2));
      cutLengths = grown(cutLengths, new Uint8Array(n * 2));
    }
    if (found.count) {
      if (m === cutTermed.length) cutTermed = grown(cutTermed, new Int32Array(m * 2));
      cutTermed[m++] = n;
      analysed.push(found);
      if (analysedNow && found.count > 1) several += 16 + 8 * found.count + found.terms.reduce((sum, t) => sum + 16 + 2 * t.length, 0);
    }
    cutOrigins[n] = origin;
    cutLengths[n++] = end - start;
  };
  const length = text.length;
  let i = 0;
  while (i < length) {
    while (i < length && isSpace(text.charCodeAt(i))) i++;
    if (i === length) break;
    const start = i;
    // The word's hash as it is scanned (`termHash`).
    let hash = 0x811c9dc5;
    for (let c: number; i < length && !isSpace((c = text.charCodeAt(i))); i++) hash = Math.imul(hash ^ c, 0x01000193);
    if (i - start <= 40) piece(text, start, i, hash | 0, start);
    else for (const part of text.slice(start, i).matchAll(LONG_WORD)) piece(part[0], 0, part[0].length, termHash(part[0]), start + part.index);
  }
  return {
    origins: cutOrigins.slice(0, n),
    lengths: cutLengths.slice(0, n),
    termed: cutTermed.slice(0, m),
    analysed,
    bytes: 200 + n * 5 + m * 12 + several,
  };
}

/** `into`, holding `from`'s elements first. */
function grown<T extends Int32Array | Uint8Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

/**
 * For the snippet being cut (grown as needed, so that no array is allocated for it): the pieces' places in the cleaned
 * text, the query term each piece with terms stands for, and how many pieces of the passage tried stand for each term.
 */
let starts = new Int32Array(1024);
let hit = new Int32Array(1024);
let counts = new Int32Array(64);
/** The query's terms in a small open-addressed table by hash: the term, its hash, and its place among them (1 on; 0: an empty slot). */
let slotTerms: string[] = [];
let slotHashes = new Int32Array(64);
let slotPlaces = new Int32Array(64);

/** What pieces take in memory, roughly: their typed arrays, a reference a piece with terms, and the words of several terms. */
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
  const { origins, lengths, termed, analysed } = pieces ?? cut(text, language);
  const n = origins.length;
  // Each piece's place in the cleaned text: after the one before it, and a space when whitespace parts them (the
  // pieces of a long word do not part).
  if (starts.length < n) starts = new Int32Array(Math.max(n, starts.length * 2));
  for (let i = 1; i < n; i++) starts[i] = starts[i - 1] + lengths[i - 1] + (origins[i] > origins[i - 1] + lengths[i - 1] ? 1 : 0);
  // The cleaned text ends where its last piece does.
  if (n === 0 || starts[n - 1] + lengths[n - 1] <= size) return cleaned(text);
  // The query's distinct terms by hash, and the one each piece with terms stands for (the first of its terms that
  // the query has, confirmed on the term itself; 0: none).
  let slots = slotHashes.length;
  while (slots < terms.length * 2) slots *= 2;
  if (slots > slotHashes.length) {
    slotHashes = new Int32Array(slots);
    slotPlaces = new Int32Array(slots);
  } else slotPlaces.fill(0);
  if (slotTerms.length < slots) slotTerms = new Array<string>(slots).fill('');
  const mask = slots - 1;
  let places = 0;
  for (const t of terms) {
    const h = termHash(t);
    let slot = h & mask;
    while (slotPlaces[slot] !== 0 && slotTerms[slot] !== t) slot = (slot + 1) & mask;
    if (slotPlaces[slot] === 0) {
      slotTerms[slot] = t;
      slotHashes[slot] = h;
      slotPlaces[slot] = ++places;
    }
  }
  const m = termed.length;
  if (hit.length < m) hit = new Int32Array(Math.max(m, hit.length * 2));
  if (counts.length <= places) counts = new Int32Array(Math.max(places + 1, counts.length * 2));
  counts.fill(0, 0, places + 1);
  for (let k = 0; k < m; k++) {
    const a = analysed[k];
    let place = 0;
    for (let t = 0; t < a.count && place === 0; t++) {
      const h = t === 0 ? a.first : a.hashes[t];
      for (let slot = h & mask; slotPlaces[slot] !== 0; slot = (slot + 1) & mask) {
        if (slotHashes[slot] === h && slotTerms[slot] === a.terms[t]) {
          place = slotPlaces[slot];
          break;
        }
      }
    }
    hit[k] = place;
  }
  // A window of pieces [i, j) slides along the text; `ki` and `kj` are the first pieces with terms at or after i and j.
  let distinct = 0;
  let from = 0;
  let to = 0;
  let score = -1;
  let j = 0;
  let kj = 0;
  let ki = 0;
  for (let i = 0; i < n; i++) {
    while (j < n && starts[j] + lengths[j] - starts[i] <= size) {
      if (kj < m && termed[kj] === j) {
        const x = hit[kj++];
        if (x && counts[x]++ === 0) distinct++;
      }
      j++;
    }
    if (distinct > score) {
      from = i;
      to = Math.max(i, j - 1);
      score = distinct;
    }
    if (ki < m && termed[ki] === i) {
      const x = hit[ki++];
      if (x && --counts[x] === 0) distinct--;
    }
  }
  const passage = text.slice(origins[from], origins[to] + lengths[to]).replace(/\s+/g, ' ');
  return `${from > 0 ? '…' : ''}${passage}${to < n - 1 ? '…' : ''}`;
}
