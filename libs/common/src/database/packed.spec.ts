import { packJson, packText, unpackJson, unpackText } from './packed';

describe('packed text', () => {
  it('reads back what was packed: nested values, numbers, unicode, empty objects and texts', () => {
    const data = { title: 'Ünïcode ✓ 中文 العربية 😀', n: 1.5e300, big: 2 ** 53 - 1, nested: { list: [1, 'two', null, true, { deep: [] }] }, empty: {} };
    expect(unpackJson(packJson(data))).toEqual(data);
    expect(unpackJson(packJson({}))).toEqual({});
    expect(unpackText(packText(''))).toBe('');
    expect(unpackText(packText('a\u0000b 😀'))).toBe('a\u0000b 😀');
  });

  it('takes well under the text of prose, short or longer than its largest window', () => {
    const prose = 'The patients given the treatment recovered faster than those given a placebo, and their symptoms were milder. ';
    for (const repeat of [12, 600]) {
      const text = Array.from({ length: repeat }, (_, i) => `${prose}(${i})`).join(' ');
      const packed = packText(text);
      expect(packed.length).toBeLessThan(Buffer.byteLength(text) * 0.6);
      expect(unpackText(packed)).toBe(text);
    }
  });

  it('refuses bytes that are not packed text', () => {
    expect(() => unpackText(Buffer.from('not deflate at all, just text'))).toThrow();
  });
});
