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
