import { packBytes, unpackBytes } from '@askdata/common/database/packed';

/** A posting's impact is its BM25 term-frequency part times this, rounded to an integer. */
export const IMPACT_SCALE = 10000;
/** Bits of a forward-index entry below its term frequency, holding the posting's impact (at most (10 + 1) x 10,000). */
export const IMPACT_BITS = 17;
/** An entry's impact: `entry & IMPACT_MASK`. */
export const IMPACT_MASK = 2 ** IMPACT_BITS - 1;
/** The largest term frequency an entry holds (a chunk has at most 8,192 tokens); above it, BM25 has long saturated. */
export const MAX_ENTRY_TF = 2 ** (31 - IMPACT_BITS) - 1;

/**
 * A forward-index entry: a term's frequency in the chunk and its posting's impact in one integer, tf x 2^17 + impact,
 * within PostgreSQL's int. A single small number per term keeps the forward index about half the size of a [tf, impact]
 * pair, and a chunk row is cheaper to write by as much; search reads `entry >> IMPACT_BITS`, removal
 * `entry & IMPACT_MASK`.
 */
export function forwardEntry(tf: number, impact: number): number {
  return Math.min(tf, MAX_ENTRY_TF) * 2 ** IMPACT_BITS + impact;
}

/** A chunk's forward index: its terms and, in the same order, their entries (`forwardEntry`). */
export interface ForwardIndex {
  names: string[];
  entries: number[];
}

/**
 * A forward index as stored (`retrieval.chunks.forward`): the number of terms, each term followed by a NUL (no term
 * holds one), then each entry as a varint, all compressed with DEFLATE (`packBytes`). As jsonb (a header for each key
 * and value, the value a numeric) a synthetic chunk's 106 terms took about 2.7 KB, about 890 bytes once PostgreSQL
 * compressed it; packed, about 460.
 */
export function packForward(names: readonly string[], entries: ArrayLike<number>, from = 0): Buffer {
  const n = names.length;
  for (const name of names) if (name.includes('\u0000')) throw new Error('a term holding NUL has no place in a forward index');
  const text = n ? `${names.join('\u0000')}\u0000` : '';
  const bytes = Buffer.allocUnsafe(5 + Buffer.byteLength(text) + 5 * n);
  let at = varint(bytes, 0, n);
  at += bytes.write(text, at);
  for (let k = 0; k < n; k++) at = varint(bytes, at, entries[from + k]);
  return packBytes(bytes.subarray(0, at));
}

export function unpackForward(packed: Buffer): ForwardIndex {
  const bytes = unpackBytes(packed);
  const read = { at: 0 };
  const n = readVarint(bytes, read);
  // The terms end at their n-th NUL; read as one string and split (a string a term costs more).
  let end = read.at;
  for (let seen = 0; seen < n;) {
    if (end >= bytes.length) throw new Error('a forward index with fewer terms than it counts');
    if (bytes[end++] === 0) seen++;
  }
  const names = n ? bytes.toString('utf8', read.at, end - 1).split('\u0000') : [];
  const entries = new Array<number>(n);
  let at = end;
  for (let k = 0; k < n; k++) {
    if (at >= bytes.length) throw new Error('a forward index of another length than its terms give');
    let b = bytes[at++];
    let v = b & 0x7f;
    for (let scale = 0x80; b >= 0x80; scale *= 0x80) {
      if (at >= bytes.length) throw new Error('a forward index of another length than its terms give');
      b = bytes[at++];
      v += (b & 0x7f) * scale;
    }
    entries[k] = v;
  }
  if (at !== bytes.length) throw new Error('a forward index of another length than its terms give');
  return { names, entries };
}

/** A chunk row's forward index: `forward` where it was written packed, else the jsonb `terms` of rows written before. */
export function forwardOf(row: { forward?: Buffer | null; terms?: Record<string, number> | null }): ForwardIndex {
  if (row.forward) return unpackForward(row.forward);
  const terms = row.terms ?? {};
  const names = Object.keys(terms);
  return { names, entries: names.map((t) => terms[t]) };
}

function varint(bytes: Buffer, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    bytes[at++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 0x80);
  }
  bytes[at++] = v;
  return at;
}

function readVarint(bytes: Buffer, read: { at: number }): number {
  let v = 0;
  for (let shift = 0; ; shift += 7) {
    if (read.at >= bytes.length) throw new Error('a forward index of another length than its terms give');
    const b = bytes[read.at++];
    v += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return v;
  }
}
