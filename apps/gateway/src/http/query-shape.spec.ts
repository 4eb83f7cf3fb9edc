import { ListItemsQueryDto } from '@askdata/contracts';
import { parseQuery, queryShape, UNDECODABLE } from './query-shape';

describe('parseQuery', () => {
  it('reads what Node reads from valid percent-encoding: plus signs, repeats, empty values', () => {
    expect({ ...parseQuery('item_id=a+b%2Fc&tenant=1&tenant=2&page=&x') }).toEqual({ item_id: 'a b/c', tenant: ['1', '2'], page: '', x: '' });
    expect({ ...parseQuery('item_id=%F0%9F%98%80%E2%80%AE') }).toEqual({ item_id: '😀\u202e' });
    // Express's parser is given null for a URL without a query string.
    expect(parseQuery(null)).toEqual({});
    expect(parseQuery('')).toEqual({});
  });

  it('keeps a name or value that is not percent-encoded UTF-8 as undecodable, not as another value', () => {
    for (const v of ['%FF', '%C3', '%ED%A0%80', '%ZZ', '%', 'a%2']) expect(parseQuery(`item_id=${v}&page=2`)).toMatchObject({ item_id: UNDECODABLE, page: '2' });
    expect(parseQuery('item_id=ok&item_id=%FF').item_id).toBe(UNDECODABLE);
    expect(parseQuery('item%FF=1')['item\ufffd']).toBe(UNDECODABLE);
  });
});

describe('queryShape', () => {
  it('refuses an undecodable value, naming its parameter', () => {
    const { errors, rest } = queryShape(ListItemsQueryDto, parseQuery('item_id=%FF&collection=docs'));
    expect(errors).toEqual({ item_id: ['The item_id query parameter must be percent-encoded UTF-8 text.'] });
    expect(rest).toEqual({ collection: 'docs' });
  });
});
