import { packData, unpackData } from './packed-data';

describe('packed item data', () => {
  it('reads back what was packed: nested values, numbers, unicode, empty objects', () => {
    const data = { title: 'Ünïcode ✓ 中文 العربية', n: 1.5e300, big: 2 ** 53 - 1, nested: { list: [1, 'two', null, true, { deep: [] }] }, empty: {} };
    expect(unpackData(packData(data))).toEqual(data);
    expect(unpackData(packData({}))).toEqual({});
  });

  it('takes well under the JSON of prose, small or larger than its largest window', () => {
    const prose = 'The patients given the treatment recovered faster than those given a placebo, and their symptoms were milder. ';
    for (const repeat of [12, 600]) {
      const data = { title: 'Trial', text: Array.from({ length: repeat }, (_, i) => `${prose}(${i})`).join(' ') };
      const json = Buffer.byteLength(JSON.stringify(data));
      const packed = packData(data);
      expect(packed.length).toBeLessThan(json * 0.6);
      expect(unpackData(packed)).toEqual(data);
    }
  });

  it('refuses bytes that are not packed data', () => {
    expect(() => unpackData(Buffer.from('not deflate at all, just text'))).toThrow();
  });
});
