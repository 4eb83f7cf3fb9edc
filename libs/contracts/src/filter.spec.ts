import { parseFilter } from './filter';

describe('parseFilter', () => {
  it('parses equality, $in, ranges and $ne', () => {
    const { filters, errors } = parseFilter({ color: 'red', size: { $in: [1, 2] }, price: { $gte: 10, $lt: 20 }, kind: { $ne: 'x' } });
    expect(errors).toEqual({});
    expect(filters).toEqual([
      { field: 'color', conditions: [{ op: 'eq', value: 'red' }] },
      { field: 'size', conditions: [{ op: 'in', values: [1, 2] }] },
      {
        field: 'price',
        conditions: [
          { op: 'gte', value: 10 },
          { op: 'lt', value: 20 },
        ],
      },
      { field: 'kind', conditions: [{ op: 'ne', value: 'x' }] },
    ]);
  });

  it('reports malformed parts with dotted paths', () => {
    const { errors } = parseFilter({ a: { $in: [] }, b: { $regex: 'x' }, c: null, d: { $gt: {} }, 'say "hi"': 1 });
    expect(Object.keys(errors).sort()).toEqual(['filter.a.$in', 'filter.b.$regex', 'filter.c', 'filter.d.$gt', 'filter.say "hi"']);
  });

  it('takes any field name a collection can have: spaces, dots, brackets, any script; not an operator or a quote', () => {
    const names = ['Release date', 'origin.country', 'Größe [cm]', '価格', 'x'.repeat(128)];
    const { filters, errors } = parseFilter(Object.fromEntries(names.map((n) => [n, 1])));
    expect(errors).toEqual({});
    expect(filters.map((f) => f.field)).toEqual(names);
    for (const bad of ['$and', 'a"b', 'tab\there', 'x'.repeat(129)]) {
      expect(Object.keys(parseFilter({ [bad]: 1 }).errors)).toEqual([`filter.${bad}`]);
    }
  });

  it('rejects a filter that is not an object', () => {
    expect(parseFilter([1]).errors).toEqual({ filter: ['The filter field must be an object.'] });
  });

  it("takes no member of Object's prototype for an operator", () => {
    const { filters, errors } = parseFilter(JSON.parse('{"price":{"constructor":5,"toString":1,"__proto__":2,"$gt":3}}'));
    expect(errors).toEqual({
      'filter.price.constructor': ['The operator constructor is not supported; use $in, $ne, $gt, $gte, $lt or $lte.'],
      'filter.price.toString': ['The operator toString is not supported; use $in, $ne, $gt, $gte, $lt or $lte.'],
      'filter.price.__proto__': ['The operator __proto__ is not supported; use $in, $ne, $gt, $gte, $lt or $lte.'],
    });
    expect(filters).toEqual([{ field: 'price', conditions: [{ op: 'gt', value: 3 }] }]);
  });
});
