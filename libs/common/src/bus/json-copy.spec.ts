import { jsonCopy } from './json-copy';

/** What the wire gives: the value written as JSON and read back. */
const throughJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  get sum(): number {
    return this.x + this.y;
  }
}

describe('jsonCopy', () => {
  const cases: Record<string, unknown> = {
    'plain records': { id: 'a1', data: { title: 'T', tags: ['x', 'y'], n: 3, ok: true, none: null }, list: [1, 'two', false, null] },
    'dates, as their ISO strings': { at: new Date('2026-11-25T10:00:00.123Z'), invalid: new Date(NaN), list: [new Date(0)] },
    'undefined members left out, and null in arrays': { a: undefined, b: 1, list: [undefined, () => 1, Symbol('s')] },
    'functions and symbol keys left out': { f: () => 1, [Symbol('k')]: 1, kept: 'yes' },
    'numbers JSON cannot write, as null; -0 as 0': { nan: NaN, inf: Infinity, ninf: -Infinity, negativeZero: -0, big: 1e300, tiny: 5e-324 },
    'toJSON, given its key': { nested: { toJSON: (key: string) => `member ${key}` }, list: [{ toJSON: (key: string) => `index ${key}` }] },
    'boxed primitives': { n: Object(5) as unknown, s: Object('str') as unknown, b: Object(false) as unknown },
    'class instances, by their own enumerable members': { point: new Point(1, 2), map: new Map([['k', 1]]), set: new Set([1]) },
    'buffers and typed arrays': { buffer: Buffer.from('hi'), bytes: new Uint8Array([1, 2]) },
    'errors, by their own enumerable members': { error: Object.assign(new Error('boom'), { code: 'E1' }) },
    'sparse arrays, holes as null': { list: [1, , 3] }, // eslint-disable-line no-sparse-arrays
    'integer-like keys, in the order JSON reads them back': { b: 1, 2: 'two', a: 2, 1: 'one', '-1': 'minus' },
    'strings with quotes, escapes, lone surrogates and astral characters': { s: 'q"\\\n\t\u0000 \ud800 😀 é' },
    'a shared object, copied once per place (not a cycle)': (() => {
      const shared = { v: 1 };
      return { a: shared, b: [shared, shared] };
    })(),
  };

  it.each(Object.entries(cases))('gives what JSON gives: %s', (_name, value) => {
    const copy = jsonCopy(value);
    expect(copy).toStrictEqual(throughJson(value));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    expect(Object.keys(copy as object)).toEqual(Object.keys(throughJson(value) as object));
  });

  it('gives what JSON gives for top-level primitives and null', () => {
    for (const value of ['s', 0, -0, 1.5, NaN, true, null]) expect(jsonCopy(value)).toStrictEqual(throughJson(value));
    expect(jsonCopy(undefined)).toBeUndefined();
  });

  it('copies objects and arrays, sharing nothing that can change', () => {
    const value = { data: { tags: ['a'] }, list: [{ n: 1 }] };
    const copy = jsonCopy(value);
    copy.data.tags.push('b');
    copy.list[0].n = 2;
    expect(value).toEqual({ data: { tags: ['a'] }, list: [{ n: 1 }] });
  });

  it('keeps "__proto__" as an own member, as JSON.parse does, without changing the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = jsonCopy(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(copy).toStrictEqual(throughJson(value));
  });

  it('throws where JSON throws: on a cycle, and on a BigInt', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => jsonCopy(cyclic)).toThrow(TypeError);
    expect(() => jsonCopy({ n: 10n })).toThrow(TypeError);
    expect(() => JSON.stringify({ n: 10n })).toThrow(TypeError);
  });
});
