import { filterSql } from './filters';

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
