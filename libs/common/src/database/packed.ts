import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Text as stored in a `bytea` column: compressed with DEFLATE (raw, no header). PostgreSQL's own compression (pglz,
 * LZ4) finds few repeats in a kilobyte or two of prose and keeps about 93% of it; DEFLATE's Huffman codes keep about
 * 57% of English, for about 50 µs of CPU a 1.4 KB text and 20 µs to read it back (`docs/benchmarks.md`). Such a column
 * is set `STORAGE EXTERNAL`, so that PostgreSQL does not try to compress it again.
 *
 * The window is no larger than the text needs (a 32 KB one costs more to set up than a short text takes to compress);
 * any window reads back with the largest.
 */
export function packText(text: string): Buffer {
  return packBytes(Buffer.from(text));
}

export function unpackText(packed: Buffer): string {
  return unpackBytes(packed).toString();
}

/** Bytes packed as `packText` packs a text's. */
export function packBytes(bytes: Buffer): Buffer {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(bytes.length + 1))));
  return deflateRawSync(bytes, { windowBits, memLevel: Math.max(1, Math.min(8, windowBits - 6)) });
}

export function unpackBytes(packed: Buffer): Buffer {
  return inflateRawSync(packed);
}

/** A JSON value packed as its text (`packText`). */
export function packJson(value: unknown): Buffer {
  return packText(JSON.stringify(value));
}

export function unpackJson<T = unknown>(packed: Buffer): T {
  return JSON.parse(unpackText(packed)) as T;
}
