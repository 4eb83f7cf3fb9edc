import { analyze } from '@askdata/common';

/**
 * A piece's terms as a snippet compares them: their count, and for each its hash (`termHash`) and a second hash
 * (`checkHash`), so that a term of the question is matched on 48 bits without the term itself being read.
 */
export interface Analysed {
  count: number;
  hashes: readonly number[];
  checks: readonly number[];
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

/** The memo of a language's analysed pieces. */
function memoOf(language: string): { now: PieceTable; before: PieceTable } {
  let kept = memo.get(language);
  if (!kept) memo.set(language, (kept = { now: new PieceTable(), before: new PieceTable() }));
  return kept;
}

/** The piece `source[start, end)` analysed in `language` (`hash`: its `termHash`), from the memo when it is there. */
function analysedPiece(source: string, start: number, end: number, hash: number, language: string, kept: { now: PieceTable; before: PieceTable }): Analysed {
  let analysed = kept.now.find(source, start, end, hash);
  if (analysed === undefined) {
    analysed = kept.before.find(source, start, end, hash);
    const piece = source.slice(start, end);
    if (analysed === undefined) {
      const terms = analyze(piece, language);
      analysed = { count: terms.length, hashes: terms.map(termHash), checks: terms.map(checkHash) };
    }
    if (kept.now.size >= MEMO_KEPT) {
      kept.before = kept.now;
      kept.now = new PieceTable();
    }
    kept.now.add(piece, hash, analysed);
  }
  return analysed;
}

/** A term's 32-bit FNV-1a hash over its UTF-16 units: what pieces' terms are found by. */
export function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * A second hash of a term, 16 bits of another construction (multiply-rotate over UTF-16 units, then murmur3's final
 * mix): a piece's term is taken for a question's when both hashes agree, which two different terms do about once in
 * 2^48 comparisons (and a snippet compares only the terms of the question's hash), so that a snippet never reads the
 * terms themselves (strings scattered through the heap).
 */
export function checkHash(term: string): number {
  let h = 0x9747b28c ^ term.length;
  for (let i = 0; i < term.length; i++) {
    h = Math.imul(h ^ term.charCodeAt(i), 0xcc9e2d51);
    h = (h << 15) | (h >>> 17);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) & 0xffff;
}

/**
 * A text cut into pieces (its words, cut every 40 characters where longer), each with its place in the text, and the
 * pieces' terms by hash: what a snippet of the text needs, whatever the question, so that a snippet looks the
 * question's terms up rather than reading every piece.
 */
export interface Pieces {
  /** Where each piece starts in the text. */
  origins: Int32Array;
  /** Pieces are at most 40 characters (80 UTF-16 units). */
  lengths: Uint8Array;
  /**
   * Where a piece's place in the cleaned text (whitespace runs as one space, none at the start) stops being its place
   * in the text less the same count: pairs of a piece and the whitespace dropped before it, from that piece on. None
   * for a text whose words are parted by single spaces.
   */
  shifts: Int32Array;
  /**
   * The pieces' terms, E of them: their hashes (`termHash`) ascending, then, in the same order, each one's piece and
   * place among the piece's terms (`piece * 256 + place`; a piece of at most 80 UTF-16 units has fewer terms). One
   * array: each array a text keeps costs a few hundred bytes whatever it holds.
   */
  keys: Int32Array;
  /** The terms' second hashes (`checkHash`), in the order of `keys`. */
  checks: Uint16Array;
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

/** The text being cut (grown as needed): its pieces' places and lengths, their terms, and the shifts, copied out when done. */
let cutOrigins = new Int32Array(1024);
let cutLengths = new Uint8Array(1024);
let cutShifts = new Int32Array(64);
let termHashes = new Int32Array(1024);
let termChecks = new Uint16Array(1024);
let termPieces = new Int32Array(1024);

/**
 * The pieces of `text`, its words (runs of non-whitespace) analyzed in `language`. Linear in the length of the text
 * and its terms' count times its log: its words are found by scanning its character codes, each analysed word looked
 * up in the memo, and the terms sorted by hash.
 */
export function cut(text: string, language: string): Pieces {
  const kept = memoOf(language);
  let n = 0;
  let e = 0;
  let shifts = 0;
  // The piece before's place in the cleaned text, and the whitespace dropped before it.
  let clean = 0;
  let shift = 0;
  /** The piece `source[start, end)` (`hash`: its `termHash`), at `origin` in the text. */
  const piece = (source: string, start: number, end: number, hash: number, origin: number) => {
    const found = analysedPiece(source, start, end, hash, language, kept);
    if (n === cutOrigins.length) {
      cutOrigins = grown(cutOrigins, new Int32Array(n * 2));
      cutLengths = grown(cutLengths, new Uint8Array(n * 2));
    }
    for (let t = 0; t < found.count; t++, e++) {
      if (e === termHashes.length) {
        termHashes = grown(termHashes, new Int32Array(e * 2));
        termChecks = grown(termChecks, new Uint16Array(e * 2));
        termPieces = grown(termPieces, new Int32Array(e * 2));
      }
      termHashes[e] = found.hashes[t];
      termChecks[e] = found.checks[t];
      termPieces[e] = n * 256 + Math.min(t, 255);
    }
    // After the piece before it, and a space when whitespace parts them (the pieces of a long word do not part).
    if (n > 0) clean += cutLengths[n - 1] + (origin > cutOrigins[n - 1] + cutLengths[n - 1] ? 1 : 0);
    if (origin - clean !== shift) {
      shift = origin - clean;
      if (shifts + 2 > cutShifts.length) cutShifts = grown(cutShifts, new Int32Array(cutShifts.length * 2));
      cutShifts[shifts++] = n;
      cutShifts[shifts++] = shift;
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
  const order = new Int32Array(e);
  for (let x = 0; x < e; x++) order[x] = x;
  order.sort((x, y) => termHashes[x] - termHashes[y] || x - y);
  const keys = new Int32Array(2 * e);
  const checks = new Uint16Array(e);
  for (let x = 0; x < e; x++) {
    const from = order[x];
    keys[x] = termHashes[from];
    keys[e + x] = termPieces[from];
    checks[x] = termChecks[from];
  }
  return { origins: cutOrigins.slice(0, n), lengths: cutLengths.slice(0, n), shifts: shifts ? cutShifts.slice(0, shifts) : NO_SHIFTS, keys, checks };
}

/** The shifts of the texts that have none, shared. */
const NO_SHIFTS = new Int32Array(0);

/** What pieces take in memory, roughly: their typed arrays and the objects holding them. */
export function piecesBytes(p: Pieces): number {
  return 600 + p.origins.length * 5 + p.shifts.length * 4 + p.keys.length * 4 + p.checks.length * 2;
}

/** `into`, holding `from`'s elements first. */
function grown<T extends Int32Array | Uint8Array | Uint16Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

/**
 * For the snippet being cut (grown as needed, so that no array is allocated for it): each piece's place in the cleaned
 * text when the text has shifts; the pieces with terms the question has (as `keys` has them, then their numbers)
 * and the question term each stands for; and how many pieces of the passage tried stand for each question term.
 */
let startsOf = new Int32Array(1024);
let hitPieces = new Int32Array(256);
let hitPlaces = new Int32Array(256);
let counts = new Int32Array(64);
/** The question's distinct terms in a small open-addressed table by hash: the term and its place among them (1 on; 0: an empty slot). */
let slotTerms: string[] = [];
let slotPlaces = new Int32Array(64);

/** `text[from, to)` with its whitespace runs as single spaces: as it is when it has no other whitespace. */
function spaced(text: string, from: number, to: number): string {
  for (let x = from; x < to; x++) {
    const c = text.charCodeAt(x);
    if (c === 0x20 ? x + 1 < to && isSpace(text.charCodeAt(x + 1)) : isSpace(c)) return text.slice(from, to).replace(/\s+/g, ' ');
  }
  return text.slice(from, to);
}

/** The first place in `sorted[from, to)` holding a value at least `value` (`to` if none). */
function lowerBound(sorted: Int32Array, value: number, from: number, to: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The passage of `text` (about `size` characters, cut at word boundaries) holding the most distinct query terms,
 * the earliest such passage winning ties, from the text's pieces (`cut`, or cut here in `language`), its whitespace
 * runs as single spaces. `size` is at least 80, the longest a piece can be. A piece of several terms stands for the
 * first of them the question has.
 *
 * The passages tried are the windows of pieces [i, j) that fit in `size`, j as far as it fits. Going from i to i + 1
 * only lets pieces out on the left and in on the right, so the earliest window with the most terms starts at 0 or
 * where a piece with a question term first fits on the right: only those windows are counted, the pieces with a
 * question term found by its hashes (`keys`) rather than every piece read. Linear in the pieces found, logarithmic in
 * the text (linear when its whitespace has shifts).
 */
export function snippet(text: string, terms: string[], size = 240, language = 'en', pieces?: Pieces): string {
  if (!pieces && text.length <= size) return cleaned(text);
  const { origins, lengths, shifts, keys, checks } = pieces ?? cut(text, language);
  const n = origins.length;
  // Each piece's place in the cleaned text: its place in the text when no whitespace was dropped but single spaces.
  let starts = origins;
  if (shifts.length) {
    if (startsOf.length < n) startsOf = new Int32Array(Math.max(n, startsOf.length * 2));
    for (let s = 0; s < shifts.length; s += 2) {
      const to = s + 2 < shifts.length ? shifts[s + 2] : n;
      for (let i = shifts[s]; i < to; i++) startsOf[i] = origins[i] - shifts[s + 1];
    }
    for (let i = 0; i < shifts[0]; i++) startsOf[i] = origins[i];
    starts = startsOf;
  }
  // The cleaned text ends where its last piece does.
  if (n === 0 || starts[n - 1] + lengths[n - 1] <= size) return cleaned(text);
  // The question's distinct terms, and the pieces that have each.
  let slots = slotPlaces.length;
  while (slots < terms.length * 2) slots *= 2;
  if (slots > slotPlaces.length) slotPlaces = new Int32Array(slots);
  else slotPlaces.fill(0);
  if (slotTerms.length < slots) slotTerms = new Array<string>(slots).fill('');
  const mask = slots - 1;
  let places = 0;
  let found = 0;
  const entries = checks.length;
  for (const t of terms) {
    const h = termHash(t);
    let slot = h & mask;
    while (slotPlaces[slot] !== 0 && slotTerms[slot] !== t) slot = (slot + 1) & mask;
    if (slotPlaces[slot] !== 0) continue;
    slotTerms[slot] = t;
    slotPlaces[slot] = ++places;
    const check = checkHash(t);
    for (let at = lowerBound(keys, h, 0, entries); at < entries && keys[at] === h; at++) {
      if (checks[at] !== check) continue;
      if (found === hitPieces.length) {
        hitPieces = grown(hitPieces, new Int32Array(found * 2));
        hitPlaces = grown(hitPlaces, new Int32Array(found * 2));
      }
      hitPieces[found] = keys[entries + at];
      hitPlaces[found++] = places;
    }
  }
  // In the order of the text (by piece and place among its terms), each piece once, standing for the first of its
  // terms that the question has (insertion sort: a text seldom has more than a few dozen).
  for (let x = 1; x < found; x++) {
    const piece = hitPieces[x];
    const place = hitPlaces[x];
    let y = x - 1;
    for (; y >= 0 && hitPieces[y] > piece; y--) {
      hitPieces[y + 1] = hitPieces[y];
      hitPlaces[y + 1] = hitPlaces[y];
    }
    hitPieces[y + 1] = piece;
    hitPlaces[y + 1] = place;
  }
  let kept = 0;
  for (let x = 0; x < found; x++) {
    const piece = hitPieces[x] >> 8;
    if (kept > 0 && hitPieces[kept - 1] === piece) continue;
    hitPieces[kept] = piece;
    hitPlaces[kept++] = hitPlaces[x];
  }
  found = kept;
  if (counts.length <= places) counts = new Int32Array(Math.max(places + 1, counts.length * 2));
  counts.fill(0, 0, places + 1);
  // Windows [i, j) at 0 and where each piece found first fits, in the order of the text; `a` and `b` are the first
  // pieces found at or after i and j.
  let distinct = 0;
  let from = 0;
  let to = 0;
  let score = -1;
  let i = 0;
  let j = 0;
  let a = 0;
  let b = 0;
  for (let next = -1; next < found; next++) {
    if (next >= 0) {
      const q = hitPieces[next];
      const fits = lowerBound(starts, starts[q] + lengths[q] - size, i, q + 1);
      // Already in the window at i.
      if (fits === i) continue;
      i = fits;
    }
    while (a < found && hitPieces[a] < i) {
      if (a < b && --counts[hitPlaces[a]] === 0) distinct--;
      a++;
    }
    if (b < a) b = a;
    // The window's end: past every piece that fits after starts[i] (those before j did from an earlier start).
    let lo = Math.max(j, i);
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] + lengths[mid] - starts[i] <= size) lo = mid + 1;
      else hi = mid;
    }
    j = lo;
    while (b < found && hitPieces[b] < j) if (counts[hitPlaces[b++]]++ === 0) distinct++;
    if (distinct > score) {
      from = i;
      to = Math.max(i, j - 1);
      score = distinct;
    }
  }
  const passage = spaced(text, origins[from], origins[to] + lengths[to]);
  return `${from > 0 ? '…' : ''}${passage}${to < n - 1 ? '…' : ''}`;
}
