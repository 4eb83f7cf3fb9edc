import type { Request } from 'express';
import { envelope, pageWindow } from './pagination';

function request(query: Record<string, string>): Request {
  return {
    protocol: 'http',
    get: () => 'api.test:3000',
    baseUrl: '',
    path: '/v1/items',
    query,
  } as unknown as Request;
}

describe('envelope', () => {
  it('builds Laravel meta and links that keep other query parameters', () => {
    const env = envelope(request({ page: '2', per_page: '2', collection: 'docs' }), 2, 2, { data: ['c', 'd'], total: 5 });
    expect(env.meta).toMatchObject({ current_page: 2, from: 3, to: 4, last_page: 3, per_page: 2, total: 5, path: 'http://api.test:3000/v1/items' });
    expect(env.links).toEqual({
      first: 'http://api.test:3000/v1/items?per_page=2&collection=docs&page=1',
      last: 'http://api.test:3000/v1/items?per_page=2&collection=docs&page=3',
      prev: 'http://api.test:3000/v1/items?per_page=2&collection=docs&page=1',
      next: 'http://api.test:3000/v1/items?per_page=2&collection=docs&page=3',
    });
    expect(env.meta.links.map((l) => l.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
    expect(env.meta.links.find((l) => l.active)?.label).toBe('2');
  });

  it('gives null from/to on an empty list and beyond the last page', () => {
    const empty = envelope(request({}), 1, 15, { data: [], total: 0 });
    expect(empty.meta).toMatchObject({ from: null, to: null, last_page: 1, total: 0 });
    expect(empty.links.prev).toBeNull();
    expect(empty.links.next).toBeNull();
    const beyond = envelope(request({ page: '9' }), 9, 15, { data: [], total: 20 });
    expect(beyond.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 2 });
    expect(beyond.links.next).toBeNull();
    expect(beyond.links.prev).toContain('page=8');
  });

  it('marks the last page: no next link', () => {
    const last = envelope(request({ page: '2' }), 2, 10, { data: [1, 2, 3], total: 13 });
    expect(last.meta).toMatchObject({ from: 11, to: 13 });
    expect(last.links.next).toBeNull();
  });
});

describe('pageWindow', () => {
  it('lists every page when there are few', () => {
    expect(pageWindow(1, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('lists every page up to 13 pages, as Laravel does', () => {
    expect(pageWindow(7, 13)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it('elides around the current page when there are many, with the window of Laravel 8 and later', () => {
    expect(pageWindow(10, 30)).toEqual([1, 2, null, 7, 8, 9, 10, 11, 12, 13, null, 29, 30]);
    expect(pageWindow(1, 30)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 29, 30]);
    expect(pageWindow(7, 30)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 29, 30]);
    expect(pageWindow(8, 30)).toEqual([1, 2, null, 5, 6, 7, 8, 9, 10, 11, null, 29, 30]);
    expect(pageWindow(23, 30)).toEqual([1, 2, null, 20, 21, 22, 23, 24, 25, 26, null, 29, 30]);
    expect(pageWindow(24, 30)).toEqual([1, 2, null, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(pageWindow(30, 30)).toEqual([1, 2, null, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(pageWindow(1, 14)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 13, 14]);
  });
});
