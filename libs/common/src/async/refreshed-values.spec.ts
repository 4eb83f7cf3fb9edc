import { RefreshedValues } from './refreshed-values';

describe('RefreshedValues', () => {
  /** A lookup that answers with the number of times it was called, or fails when told to. */
  function source() {
    const s = { calls: 0, fail: false, lookUp: () => (++s.calls, s.fail ? Promise.reject(new Error('down')) : Promise.resolve(s.calls)) };
    return s;
  }
  const settle = () => new Promise((r) => setImmediate(r));

  it('answers a fresh value without a lookup, and a stale one at once while one lookup refreshes it', async () => {
    const values = new RefreshedValues<number>(1000, 10_000);
    const s = source();
    expect(await values.get('a', s.lookUp, 0)).toBe(1);
    expect(await values.get('a', s.lookUp, 999)).toBe(1);
    expect(s.calls).toBe(1);
    // Stale: the old value now, one refresh for any number of callers, the new value after it.
    const stale = [values.get('a', s.lookUp, 1500), values.get('a', s.lookUp, 1600)];
    expect(await Promise.all(stale)).toEqual([1, 1]);
    await settle();
    expect(s.calls).toBe(2);
    expect(await values.get('a', s.lookUp)).toBe(2);
    expect(values.known('a')).toBe(2);
  });

  it('waits for a lookup when the value is too old, deleted, or never looked up successfully', async () => {
    const values = new RefreshedValues<number>(1000, 10_000);
    const s = source();
    await values.get('a', s.lookUp, 0);
    expect(await values.get('a', s.lookUp, 10_000)).toBe(2);
    values.delete('a');
    expect(await values.get('a', s.lookUp, 10_001)).toBe(3);
    s.fail = true;
    await expect(values.get('b', s.lookUp, 0)).rejects.toThrow('down');
    expect(values.known('b')).toBeUndefined();
    s.fail = false;
    expect(await values.get('b', s.lookUp, 1)).toBe(5);
  });

  it('keeps the value when a refresh fails, and refreshes again on the next call', async () => {
    const values = new RefreshedValues<number>(1000, 10_000);
    const s = source();
    await values.get('a', s.lookUp, 0);
    s.fail = true;
    expect(await values.get('a', s.lookUp, 2000)).toBe(1);
    await settle();
    s.fail = false;
    expect(await values.get('a', s.lookUp, 3000)).toBe(1);
    await settle();
    expect(s.calls).toBe(3);
    expect(values.known('a')).toBe(3);
  });

  it('does not let a refresh bring back a value deleted meanwhile', async () => {
    const values = new RefreshedValues<number>(1000, 10_000);
    let answer!: (n: number) => void;
    await values.get('a', () => Promise.resolve(1), 0);
    await values.get('a', () => new Promise<number>((r) => (answer = r)), 2000);
    values.delete('a');
    answer(2);
    await settle();
    expect(values.known('a')).toBeUndefined();
  });
});
