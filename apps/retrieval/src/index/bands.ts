/**
 * Impact bands of the PostgreSQL index. A term's postings are stored in blocks per band, and searches read a term's
 * blocks band by band, best first, so the bands must be narrow where impacts are many; they grow by a quarter each,
 * so a band spans about the same share of impact at every level. The floors are integers, so the band of an impact
 * is computed exactly the same way here and in SQL (`width_bucket(impact, floors)`): removal finds a posting's block
 * row by its band. Changing the floors needs a migration that rebuilds the blocks.
 */
export const BAND_FLOORS: readonly number[] = (() => {
  const floors: number[] = [];
  for (let x = 1; x <= 1_000_000; x = Math.max(x + 1, Math.round(x * 1.25))) floors.push(x);
  return floors;
})();

/** The band of an impact: the number of floors at or below it, as PostgreSQL's width_bucket counts. */
export function bandOf(impact: number): number {
  let lo = 0;
  let hi = BAND_FLOORS.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (BAND_FLOORS[mid] <= impact) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
