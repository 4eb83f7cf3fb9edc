import { request as httpRequest } from 'node:http';
import { createProject, HttpResponse, Item, Page, Project } from '../support/harness';
import { expectMessageOnly, expectValidation } from '../support/shapes';

/**
 * Query strings say no to what they do not understand: a parameter in brackets (`tenant[]=1`, `tenant[$ne]=1`), a
 * repeated one or one the route does not know is 422 naming it, never ignored (an ignored filter answers the
 * unfiltered list: another tenant's items); integers are plain decimal digits; limits give one message.
 */
const LISTS: Array<[string, string[]]> = [
  ['/items', ['collection', 'tenant', 'item_id']],
  ['/upserts', ['status', 'collection']],
  ['/collections', ['slug']],
  ['/chats', ['tenant', 'type', 'user']],
];

/** A GET with a JSON body, which fetch does not send. */
function getWithBody(p: Project, path: string, body: unknown): Promise<HttpResponse> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${p.baseUrl}${path}`,
      { method: 'GET', headers: { 'Api-Key': p.key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } },
      (res) => {
        let answer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (answer += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: new Headers(), body: JSON.parse(answer), text: answer }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('query strings', () => {
  let multi: Project;
  beforeAll(async () => {
    multi = await createProject('multi');
    await multi.upsertAndWait(
      [
        { id: 'one', tenant: 1, data: { text: 'for tenant one' } },
        { id: 'two', tenant: 2, data: { text: 'for tenant two' } },
      ],
      { slug: 'qs' },
    );
  }, 60000);

  it("a tenant filter in brackets is refused, not ignored: no other tenant's items", async () => {
    const plain = await multi.get<Page<Item>>('/items?tenant=1');
    expect(plain.status).toBe(200);
    expect(plain.body.data.map((i) => i.item_id)).toEqual(['one']);
    for (const q of ['tenant[]=1', 'tenant[$ne]=1', 'tenant[0]=1', 'tenant=1&tenant=2']) {
      const r = await multi.get(`/items?${q}`);
      expectValidation(r, ['tenant']);
      expect(r.body.message).toBe('The tenant query parameter must be given once, as a plain value.');
    }
  });

  it.each(LISTS)('GET %s refuses each of its parameters in brackets or repeated, naming it', async (route, params) => {
    for (const name of [...params, 'page', 'per_page']) {
      for (const q of [`${name}[]=x`, `${name}[$ne]=x`, `${name}[a][b]=1`, `${name}=1&${name}=1`]) {
        expectValidation(await multi.get(`${route}?${q}`), [name]);
      }
    }
  });

  it.each(LISTS)('GET %s refuses a parameter it does not know, naming it', async (route) => {
    const r = await multi.get(`${route}?colection=qs`);
    expectValidation(r, ['colection']);
    expect(r.body.message).toBe('The colection query parameter is not supported.');
    expectValidation(await multi.get(`${route}?page=1&scope[project]=x`), ['scope']);
  });

  it.each(LISTS.map(([route]) => route))('GET %s takes page and per_page as plain decimal integers only', async (route) => {
    for (const v of ['0x10', '1e1', '+2', '2.0', '%201', '1%20', '0b1', '']) {
      expectValidation(await multi.get(`${route}?page=${v}`), ['page']);
      expectValidation(await multi.get(`${route}?per_page=${v}`), ['per_page']);
    }
    expect((await multi.get(`${route}?page=02&per_page=10`)).status).toBe(200);
  });

  it('a tenant is a plain decimal integer too', async () => {
    for (const v of ['0x1', '1e0', '+1', '1.0', '%201']) {
      expectValidation(await multi.get(`/items?tenant=${v}`), ['tenant']);
      expectValidation(await multi.get(`/chats?tenant=${v}`), ['tenant']);
    }
  });

  it.each(LISTS.map(([route]) => route))('GET %s says the same maximum for every per_page over it', async (route) => {
    for (const v of ['101', '1000', '5000', '99999999999999999999']) {
      const r = await multi.get(`${route}?per_page=${v}`);
      expectValidation(r, ['per_page']);
      expect(r.body.message).toBe('The per_page field must not be greater than 100.');
    }
  });

  it('a parameter that is not percent-encoded UTF-8 is refused, naming it, not read as another value', async () => {
    // Node's parser would read %FF, %C3 and %ED%A0%80 (a surrogate) as U+FFFD, and keep %ZZ as written.
    await multi.upsertAndWait([{ id: '\ufffd', tenant: 3, data: { text: 'an id of one replacement character' } }], { slug: 'qs-raw' });
    for (const v of ['%FF', '%C3', '%ED%A0%80', '%ZZ', '%']) {
      const items = await multi.get(`/items?item_id=${v}`);
      expectValidation(items, ['item_id']);
      expect(items.body.message).toBe('The item_id query parameter must be percent-encoded UTF-8 text.');
      expectValidation(await multi.get(`/chats?user=${v}`), ['user']);
      expectValidation(await multi.get(`/upserts?collection=qs-raw&status=${v}`), ['status']);
      expectValidation(await multi.request('DELETE', `/items?collection=qs-raw&item_id=${v}`), ['item_id']);
    }
    expectValidation(await multi.get('/items?item%FF=1'), ['item\ufffd']);
    expect((await multi.get<Page<Item>>('/items?collection=qs-raw&item_id=%EF%BF%BD')).body.data.map((i) => i.item_id)).toEqual(['\ufffd']);
  });

  it('a route that takes no query parameters or no body refuses any, naming it, instead of doing what it did not say', async () => {
    const upsert = await multi.request('POST', '/upserts?collection=elsewhere', { body: { items: [{ id: 'stray', tenant: 1, data: { text: 'x' } }] } });
    expectValidation(upsert, ['collection']);
    expect(upsert.body.message).toBe('The collection query parameter is not supported.');
    expectValidation(await multi.request('POST', '/search?limit=1', { body: { text: 'tenant', tenant: 1 } }), ['limit']);
    expectValidation(await multi.request('POST', '/query?stream=true&tenant=1', { body: { text: 'tenant', tenant: 1 } }), ['stream', 'tenant']);
    const chat = await multi.post('/chats', { text: 'tenant', tenant: 1 });
    const [, answer] = chat.body.data.messages as Array<{ id: string }>;
    for (const path of [`/chats/${chat.body.data.id}?with=messages`, `/chats/${chat.body.data.id}/messages/${answer.id}?x=1`]) {
      expectValidation(await multi.get(path), [path.slice(path.indexOf('?') + 1).split('=')[0]]);
    }
    expectValidation(await multi.request('POST', `/chats/${chat.body.data.id}/feedback?rating=5`, { body: { feedback: 'positive' } }), ['rating']);
    expectValidation(await multi.request('DELETE', '/tenants/1?dry_run=1'), ['dry_run']);
    // Nor does a route without a body take one: its fields are named, as a body's unknown fields are.
    const listed = await getWithBody(multi, '/v1/items', { collection: 'elsewhere' });
    expectValidation(listed, ['collection']);
    expect(listed.body.message).toBe('The collection field is not a field of this request.');
    expectValidation(await multi.request('DELETE', '/tenants/1', { body: { tenant: 2 } }), ['tenant']);
    expectValidation(await multi.request('DELETE', '/tenants/1', { body: [2] }), ['body']);
    // Nothing was done: no upsert into "elsewhere", tenant 1 still there.
    expect((await multi.get<Page<Item>>('/items?tenant=1')).body.data.map((i) => i.item_id)).toEqual(['one']);
    expect((await multi.get('/upserts?collection=elsewhere')).body.data).toEqual([]);
  });

  it('an empty item_id or user filter is refused: no item or user has an empty id', async () => {
    expectValidation(await multi.get('/items?item_id='), ['item_id']);
    expectValidation(await multi.get('/chats?user='), ['user']);
  });

  it('an undecodable path segment is an unknown id: 404', async () => {
    for (const path of ['/items/%ff', '/upserts/%ff', '/collections/%E0%A4%A', '/chats/%ff', '/chats/%ff/messages/%c0']) {
      const r = await multi.get(path);
      expect(r.status).toBe(404);
      expectMessageOnly(r.body);
    }
  });

  it('an $in list over its limit says the limit', async () => {
    const values = Array.from({ length: 1001 }, (_, i) => `v${i}`);
    const r = await multi.post('/search', { text: 'tenant', tenant: 1, filter: { kind: { $in: values } } });
    expectValidation(r, ['filter.kind.$in']);
    expect(r.body.message).toBe('The filter.kind.$in field must not have more than 1000 items.');
  });
});
