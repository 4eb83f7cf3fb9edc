import { Chat, Collection, createProject, Item, Page, PageMeta, Project, sharedService, Upsert } from '../support/harness';
import { anything, expectShape, expectValidation, pageSpec } from '../support/shapes';

const LISTS = ['/items', '/upserts', '/collections', '/chats'];

/** An absolute link to `route` carrying exactly these query parameters (others allowed only if listed). */
function expectLink(link: string | null, route: string, params: Record<string, string>): void {
  expect(link).toEqual(expect.any(String));
  const u = new URL(link as string);
  expect(u.origin + u.pathname).toBe(`${sharedService().url}/v1${route}`);
  const got = Object.fromEntries(u.searchParams.entries());
  expect(got).toEqual(expect.objectContaining(params));
}

function labels(meta: PageMeta): string[] {
  return meta.links.map((l) => l.label);
}

describe('pagination', () => {
  describe('an empty project', () => {
    let empty: Project;
    beforeAll(async () => {
      empty = await createProject();
    });

    it.each(LISTS)('GET %s is an empty first page with null from/to', async (route) => {
      const r = await empty.get<Page<unknown>>(route);
      expect(r.status).toBe(200);
      expectShape(r.body, pageSpec(anything));
      expect(r.body.data).toEqual([]);
      expect(r.body.meta).toMatchObject({ current_page: 1, from: null, to: null, last_page: 1, per_page: 15, total: 0, path: `${sharedService().url}/v1${route}` });
      expect(r.body.links.prev).toBeNull();
      expect(r.body.links.next).toBeNull();
      expectLink(r.body.links.first, route, { page: '1' });
      expectLink(r.body.links.last, route, { page: '1' });
      expect(labels(r.body.meta)[0]).toBe('&laquo; Previous');
      expect(labels(r.body.meta).at(-1)).toBe('Next &raquo;');
    });

    it.each(LISTS)('GET %s beyond the last page is data [] with meta.from/to null', async (route) => {
      const r = await empty.get<Page<unknown>>(`${route}?page=4`);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([]);
      expect(r.body.meta).toMatchObject({ current_page: 4, from: null, to: null, last_page: 1, total: 0 });
      expect(r.body.links.next).toBeNull();
    });

    it.each(LISTS)('GET %s reports page and per_page errors together', async (route) => {
      expectValidation(await empty.get(`${route}?page=0&per_page=101`), ['page', 'per_page']);
    });

    it.each(LISTS)('GET %s refuses page and per_page out of bounds with 422', async (route) => {
      for (const q of ['per_page=101', 'per_page=0', 'per_page=-5', 'per_page=abc', 'per_page=1.5', 'page=0', 'page=-1', 'page=abc', 'page=2.5']) {
        expectValidation(await empty.get(`${route}?${q}`), [q.split('=')[0]]);
      }
      expect((await empty.get(`${route}?per_page=100`)).status).toBe(200);
      expect((await empty.get(`${route}?per_page=1`)).status).toBe(200);
    });
  });

  describe('a project with seven items, each from its own upsert', () => {
    let p: Project;
    const upserts: Upsert[] = [];
    beforeAll(async () => {
      p = await createProject();
      for (let i = 0; i < 7; i++) upserts.push(await p.upsertAndWait([{ id: `p${i}`, data: { text: `paged item ${i}` } }], { slug: 'paged' }));
      upserts.push(await p.upsertAndWait([{ id: 'o1', data: { text: 'other' } }], { slug: 'other' }));
    });

    it('pages newest first with Laravel meta and absolute links that keep the other query parameters', async () => {
      const route = '/items';
      const q = { collection: 'paged', per_page: '3' };
      const page = (n: number) => p.get<Page<Item>>(`${route}?collection=paged&per_page=3&page=${n}`);

      const p1 = (await p.get<Page<Item>>(`${route}?collection=paged&per_page=3`)).body;
      expect(p1.data.map((i) => i.item_id)).toEqual(['p6', 'p5', 'p4']);
      expect(p1.meta).toMatchObject({ current_page: 1, from: 1, to: 3, last_page: 3, per_page: 3, total: 7, path: `${sharedService().url}/v1/items` });
      expect(labels(p1.meta)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
      expect(p1.meta.links.map((l) => l.active)).toEqual([false, true, false, false, false]);
      expect(p1.meta.links[0].url).toBeNull();
      [1, 2, 3].forEach((n) => expectLink(p1.meta.links[n].url, route, { ...q, page: String(n) }));
      expectLink(p1.meta.links[4].url, route, { ...q, page: '2' });
      expectLink(p1.links.first, route, { ...q, page: '1' });
      expectLink(p1.links.last, route, { ...q, page: '3' });
      expect(p1.links.prev).toBeNull();
      expectLink(p1.links.next, route, { ...q, page: '2' });

      const p2 = (await page(2)).body;
      expect(p2.data.map((i) => i.item_id)).toEqual(['p3', 'p2', 'p1']);
      expect(p2.meta).toMatchObject({ current_page: 2, from: 4, to: 6, last_page: 3, total: 7 });
      expect(p2.meta.links.map((l) => l.active)).toEqual([false, false, true, false, false]);
      expectLink(p2.links.prev, route, { ...q, page: '1' });
      expectLink(p2.links.next, route, { ...q, page: '3' });
      expectLink(p2.meta.links[0].url, route, { ...q, page: '1' });

      const p3 = (await page(3)).body;
      expect(p3.data.map((i) => i.item_id)).toEqual(['p0']);
      expect(p3.meta).toMatchObject({ current_page: 3, from: 7, to: 7, last_page: 3, total: 7 });
      expect(p3.links.next).toBeNull();
      expect(p3.meta.links[4]).toEqual({ url: null, label: 'Next &raquo;', active: false });
      expectLink(p3.links.prev, route, { ...q, page: '2' });

      const beyond = (await page(9)).body;
      expect(beyond.data).toEqual([]);
      expect(beyond.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 3, per_page: 3, total: 7 });
      expect(beyond.links.next).toBeNull();
      expectLink(beyond.links.last, route, { ...q, page: '3' });
    });

    it('the pages together are the whole list, each item once, in the same order', async () => {
      const all = (await p.get<Page<Item>>('/items?per_page=100')).body;
      expect(all.data).toHaveLength(8);
      expect(all.meta).toMatchObject({ per_page: 100, last_page: 1, from: 1, to: 8, total: 8 });
      const paged: string[] = [];
      for (let n = 1; n <= 3; n++) paged.push(...(await p.get<Page<Item>>(`/items?per_page=3&page=${n}`)).body.data.map((i) => i.id));
      expect(paged).toEqual(all.data.map((i) => i.id));
    });

    it('per_page=1 gives one element per page and a page label for each', async () => {
      const r = (await p.get<Page<Item>>('/items?per_page=1&collection=paged&page=2')).body;
      expect(r.data.map((i) => i.item_id)).toEqual(['p5']);
      expect(r.meta).toMatchObject({ current_page: 2, from: 2, to: 2, last_page: 7, per_page: 1, total: 7 });
      expect(labels(r.meta)).toEqual(['&laquo; Previous', '1', '2', '3', '4', '5', '6', '7', 'Next &raquo;']);
    });

    it('defaults to 15 per page', async () => {
      const r = (await p.get<Page<Upsert>>('/upserts')).body;
      expect(r.meta).toMatchObject({ per_page: 15, total: 8, from: 1, to: 8, last_page: 1 });
    });

    it('pages upserts newest first, keeping filters in the links', async () => {
      const route = '/upserts';
      const r = (await p.get<Page<Upsert>>(`${route}?status=completed&collection=paged&per_page=4`)).body;
      expect(r.data.map((u) => u.id)).toEqual(
        upserts
          .slice(3, 7)
          .map((u) => u.id)
          .reverse(),
      );
      expect(r.meta).toMatchObject({ total: 7, last_page: 2, from: 1, to: 4, path: `${sharedService().url}/v1${route}` });
      expectLink(r.links.next, route, { status: 'completed', collection: 'paged', per_page: '4', page: '2' });
      const last = (await p.get<Page<Upsert>>(`${route}?status=completed&collection=paged&per_page=4&page=2`)).body;
      expect(last.data.map((u) => u.id)).toEqual(
        upserts
          .slice(0, 3)
          .map((u) => u.id)
          .reverse(),
      );
      expect(last.meta).toMatchObject({ from: 5, to: 7 });
    });

    it('pages collections newest first', async () => {
      const r = (await p.get<Page<Collection>>('/collections?per_page=1')).body;
      expect(r.data.map((c) => c.slug)).toEqual(['other']);
      expect(r.meta).toMatchObject({ total: 2, last_page: 2, from: 1, to: 1 });
      expectLink(r.links.next, '/collections', { per_page: '1', page: '2' });
      expect((await p.get<Page<Collection>>('/collections?per_page=1&page=2')).body.data.map((c) => c.slug)).toEqual(['paged']);
    });
  });

  describe('chats', () => {
    it('pages chats newest first, keeping type and user in the links', async () => {
      const p = await createProject();
      await p.upsertAndWait([{ id: 'h', data: { text: 'The museum opens at nine.' } }]);
      const ids: string[] = [];
      for (const text of ['When does the museum open?', 'Is the museum open at nine?', 'What time is opening?']) {
        const r = await p.post<{ data: Chat }>('/chats', { text, identifier: { id: 'pager' } });
        expect(r.status).toBe(201);
        ids.push(r.body.data.id);
      }
      const route = '/chats';
      const first = (await p.get<Page<Chat>>(`${route}?type=all&user=pager&per_page=2`)).body;
      expect(first.data.map((c) => c.id)).toEqual([ids[2], ids[1]]);
      expect(first.meta).toMatchObject({ total: 3, last_page: 2, from: 1, to: 2 });
      expectLink(first.links.next, route, { type: 'all', user: 'pager', per_page: '2', page: '2' });
      const second = (await p.get<Page<Chat>>(`${route}?type=all&user=pager&per_page=2&page=2`)).body;
      expect(second.data.map((c) => c.id)).toEqual([ids[0]]);
      expect(second.meta).toMatchObject({ from: 3, to: 3 });
    });
  });
});
