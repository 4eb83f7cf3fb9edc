import { BAND_FLOORS, bandOf } from './bands';

describe('impact bands', () => {
  it('counts the floors at or below an impact, as width_bucket does', () => {
    expect(bandOf(0)).toBe(0);
    BAND_FLOORS.forEach((floor, i) => {
      expect(bandOf(floor)).toBe(i + 1);
      expect(bandOf(floor - 1)).toBe(i);
    });
    expect(bandOf(Number.MAX_SAFE_INTEGER)).toBe(BAND_FLOORS.length);
  });

  it('has strictly increasing integer floors, each at most a quarter above the last, up to every possible impact', () => {
    for (let i = 1; i < BAND_FLOORS.length; i++) {
      expect(Number.isInteger(BAND_FLOORS[i])).toBe(true);
      expect(BAND_FLOORS[i]).toBeGreaterThan(BAND_FLOORS[i - 1]);
      expect(BAND_FLOORS[i]).toBeLessThanOrEqual(Math.max(BAND_FLOORS[i - 1] + 1, Math.round(BAND_FLOORS[i - 1] * 1.25)));
    }
    // The largest impact: BM25_K1 at its maximum (10), so (k1 + 1) x 10,000; bands stay within a smallint.
    expect(BAND_FLOORS[BAND_FLOORS.length - 1]).toBeGreaterThan(110_000);
    expect(BAND_FLOORS.length).toBeLessThan(32767);
  });
});
