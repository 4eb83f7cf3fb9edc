import { forwardEntry, forwardOf, packForward, unpackForward } from './forward-entries';

describe('packed forward index', () => {
  it('reads back the terms and entries it was given, in their order, whatever their script', () => {
    const names = ['zebra', 'café', 'zürich', '2024', '#книг', '圖書館', '😀', 'brew'];
    const entries = [forwardEntry(1, 1), forwardEntry(3, 16000), forwardEntry(16383, 131071), forwardEntry(2, 127), forwardEntry(1, 128), 5, 2 ** 31 - 1, 0];
    const packed = packForward(names, entries);
    expect(unpackForward(packed)).toEqual({ names, entries });
  });

  it("takes a chunk's entries from a shared array at an offset, and holds a chunk without terms", () => {
    const shared = Int32Array.from([9, 9, forwardEntry(2, 300), forwardEntry(1, 40), 9]);
    expect(unpackForward(packForward(['oak', 'grove'], shared, 2))).toEqual({ names: ['oak', 'grove'], entries: [forwardEntry(2, 300), forwardEntry(1, 40)] });
    expect(unpackForward(packForward([], []))).toEqual({ names: [], entries: [] });
  });

  it("keeps a typical chunk's forward index in well under half of what jsonb took for it", () => {
    const words =
      'the quick brown fox jumps over lazy dogs while seventy four different stemmed terms fill a passage of prose about coffee beans roasting brewing grinding water temperature extraction bitterness acidity aroma crema espresso filter pourover kettle scale ratio grams seconds minutes bloom agitation turbulence channel puck tamp portafilter basket shower screen boiler pump pressure bar dose yield'.split(
        ' ',
      );
    const names = [...new Set(words)];
    const entries = names.map((_, k) => forwardEntry(1 + (k % 3), 9000 + k * 97));
    const jsonb = names.reduce((n, t) => n + 8 + Buffer.byteLength(t) + 12, 4);
    expect(packForward(names, entries).length).toBeLessThan(jsonb / 2);
  });

  it('refuses a term holding NUL, which would read back as two', () => {
    expect(() => packForward(['a\u0000b'], [1])).toThrow(/NUL/);
  });

  it('reads a row written before as its jsonb terms, and a packed one from its bytes', () => {
    expect(forwardOf({ forward: null, terms: { oak: 5, grove: 7 } })).toEqual({ names: ['oak', 'grove'], entries: [5, 7] });
    expect(forwardOf({ forward: packForward(['oak'], [5]), terms: null })).toEqual({ names: ['oak'], entries: [5] });
    expect(forwardOf({ forward: null, terms: null })).toEqual({ names: [], entries: [] });
  });

  it('refuses bytes that do not hold as many entries as terms', () => {
    const packed = packForward(['oak', 'grove'], [5, 7]);
    const { deflateRawSync, inflateRawSync } = jest.requireActual<typeof import('node:zlib')>('node:zlib');
    const bytes = inflateRawSync(packed);
    expect(() => unpackForward(deflateRawSync(Buffer.concat([bytes, Buffer.from([1])])))).toThrow(/length/);
    // Cut short within an entry (a varint whose last byte is missing), or within the terms.
    expect(() => unpackForward(deflateRawSync(Buffer.concat([bytes.subarray(0, -1), Buffer.from([0x81])])))).toThrow(/length/);
    expect(() => unpackForward(deflateRawSync(bytes.subarray(0, 4)))).toThrow(/fewer terms/);
  });
});
