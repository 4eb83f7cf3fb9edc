import { isUuid } from '@askdata/contracts';
import { uuidv7 } from './uuid';

describe('uuidv7', () => {
  it('gives version 7, RFC 9562 variant ids, all distinct and in the order they were made', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('starts with the time it was made, in milliseconds', () => {
    const before = Date.now();
    const id = uuidv7();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('keeps its random part random: the last 62 bits differ between ids drawn from one pool and the next', () => {
    const tails = Array.from({ length: 600 }, () => uuidv7().slice(20));
    expect(new Set(tails).size).toBe(tails.length);
  });
});
