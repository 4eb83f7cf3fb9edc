import { FieldFilter, Scalar } from '@askdata/contracts';
import { codePointOrder, filterSql, Metadata, metadataTest } from './filters';

describe('filterSql', () => {
  it('passes an $in list of any length as one parameter, not one condition per value', () => {
    const values = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    const params: unknown[] = [];
    const sql = filterSql([{ field: 'kind', conditions: [{ op: 'in', values: [...values, 7, true] }] }], 'm.metadata', params);
    expect(params).toEqual(['kind', [...values.map((v) => JSON.stringify(v)), '7', 'true']]);
    expect(sql).toHaveLength(1);
    expect(sql[0].length).toBeLessThan(300);
  });
});

describe('metadataTest', () => {
  const passes = (filter: FieldFilter[], metadata: Metadata) => metadataTest(filter)(metadata);
  const eq = (field: string, value: Scalar): FieldFilter[] => [{ field, conditions: [{ op: 'eq', value }] }];

  it('matches a value that is the scalar asked for, or an array holding it, never another type', () => {
    expect(passes(eq('color', 'red'), { color: 'red' })).toBe(true);
    expect(passes(eq('color', 'red'), { color: ['blue', 'red'] })).toBe(true);
    expect(passes(eq('color', 'red'), { color: [['red']] })).toBe(false);
    expect(passes(eq('color', 'red'), { color: 'Red' })).toBe(false);
    expect(passes(eq('size', 1), { size: '1' })).toBe(false);
    expect(passes(eq('size', 1), { size: 1.0 })).toBe(true);
    expect(passes(eq('open', true), { open: 'true' })).toBe(false);
    expect(passes(eq('open', true), { open: true })).toBe(true);
    expect(passes(eq('color', 'red'), {})).toBe(false);
  });

  it('counts a missing field as no value: every $ne holds on it, no $in does', () => {
    const ne: FieldFilter[] = [{ field: 'kind', conditions: [{ op: 'ne', value: 'x' }] }];
    expect(passes(ne, {})).toBe(true);
    expect(passes(ne, { kind: 'x' })).toBe(false);
    expect(passes(ne, { kind: ['y', 'x'] })).toBe(false);
    expect(passes(ne, { kind: null })).toBe(true);
    const inList: FieldFilter[] = [{ field: 'kind', conditions: [{ op: 'in', values: ['a', 2, false] }] }];
    expect(passes(inList, {})).toBe(false);
    expect(passes(inList, { kind: null })).toBe(false);
    expect(passes(inList, { kind: 2 })).toBe(true);
    expect(passes(inList, { kind: '2' })).toBe(false);
    expect(passes(inList, { kind: ['z', false] })).toBe(true);
    expect(passes(inList, { kind: { a: 1 } })).toBe(false);
  });

  it("reads only the metadata's own fields", () => {
    expect(passes(eq('constructor', 'x'), {})).toBe(false);
    expect(passes([{ field: 'toString', conditions: [{ op: 'ne', value: 'x' }] }], {})).toBe(true);
    expect(passes(eq('__proto__', 'x'), JSON.parse('{"__proto__": "x"}') as Metadata)).toBe(true);
  });

  it('holds ranges between numbers, or between strings in code point order, and every condition at once', () => {
    const between: FieldFilter[] = [
      {
        field: 'price',
        conditions: [
          { op: 'gte', value: 10 },
          { op: 'lt', value: 20 },
        ],
      },
    ];
    expect([9.99, 10, 19.5, 20, '15'].map((price) => passes(between, { price }))).toEqual([false, true, true, false, false]);
    const after: FieldFilter[] = [{ field: 'at', conditions: [{ op: 'gt', value: '2024-05-01' }] }];
    expect(['2024-04-30T23:59:59Z', '2024-05-01', '2024-05-01T00:00:00Z', 20240502].map((at) => passes(after, { at }))).toEqual([false, false, true, false]);
    // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 code unit.
    expect(codePointOrder('\uff5e', '\u{1f600}')).toBeLessThan(0);
    expect(codePointOrder('ab', 'abc')).toBeLessThan(0);
    expect(codePointOrder('b', 'abc')).toBeGreaterThan(0);
    const both: FieldFilter[] = [...eq('color', 'red'), { field: 'price', conditions: [{ op: 'lte', value: 5 }] }];
    expect(passes(both, { color: 'red', price: 5 })).toBe(true);
    expect(passes(both, { color: 'red', price: 6 })).toBe(false);
    expect(passes(both, { color: 'blue', price: 5 })).toBe(false);
  });
});
