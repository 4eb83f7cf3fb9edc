import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let seq = 0;

/** Random bytes drawn ahead, 16 at a time: one call into the system's generator per 256 ids instead of two per id. */
const pool = Buffer.alloc(16 * 256);
let drawn = pool.length;
const id = Buffer.alloc(16);

/** 16 fresh random bytes, copied into `id`. */
function randomId(): Buffer {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  pool.copy(id, 0, drawn, drawn + 16);
  drawn += 16;
  return id;
}

/** UUIDv7 (RFC 9562): 48-bit millisecond timestamp, then random bits; monotonic within one process. */
export function uuidv7(): string {
  const b = randomId();
  let ms = Date.now();
  if (ms <= lastMs) {
    seq = (seq + 1) & 0xfff;
    if (seq === 0) lastMs += 1;
    ms = lastMs;
  } else {
    lastMs = ms;
    // A new millisecond starts its sequence at a random point of the lower half, leaving room to count up.
    seq = ((b[6] << 8) | b[7]) & 0x7ff;
  }
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | ((seq >> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
