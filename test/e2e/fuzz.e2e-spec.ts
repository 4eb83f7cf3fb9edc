import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { admin, Chat, ChatMessage, createProject, http, HttpResponse, MISSING_ID, Project, request, sharedService } from '../support/harness';
import { expectMessageOnly, expectShape, validationErrorSpec } from '../support/shapes';
import {
  contentType,
  encodeLoosely,
  feedbackBody,
  followUpBody,
  keyBody,
  sessionBody,
  malformedJson,
  nastyString,
  pathSegment,
  projectBody,
  projectPatchBody,
  questionBody,
  queryString,
  searchBody,
  upsertBody,
} from './fuzz-inputs';

/**
 * Fuzzing every route over HTTP (the 16 /v1 operations and the admin API): random and malformed JSON, wrong types,
 * huge strings, deep nesting, unicode edge cases, traversal and SQL in path and query, foreign ids, wrong
 * Content-Types, oversized bodies, hostile credentials. Whatever comes in: never a 5xx, every error in the
 * contract's shape (`{message}`, or `{message, errors}` for 422), nothing of another project in any response, and
 * every upsert accepted is processed. Tenant isolation has its own properties (isolation.e2e-spec.ts).
 * Runs are seeded: FUZZ_SEED=<n> replays a run, FUZZ_RUNS=<n> changes its size.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const params = (runs = RUNS): fc.Parameters<unknown> => ({ seed: SEED, numRuns: runs });

type Kind = 'upsert' | 'item' | 'collection' | 'chat' | 'message' | 'tenant';

interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** As in the OpenAPI document, e.g. /v1/chats/{chat}/messages/{message}. */
  path: string;
  params: Kind[];
  /** Query parameters of a list route. */
  query?: string[];
  body?: fc.Arbitrary<unknown>;
}

const ROUTES: Route[] = [
  { method: 'POST', path: '/v1/upserts', params: [], body: upsertBody },
  { method: 'GET', path: '/v1/upserts', params: [], query: ['status', 'collection'] },
  { method: 'GET', path: '/v1/upserts/{upsert}', params: ['upsert'] },
  { method: 'GET', path: '/v1/items', params: [], query: ['collection', 'tenant', 'item_id'] },
  { method: 'GET', path: '/v1/items/{item}', params: ['item'] },
  { method: 'GET', path: '/v1/collections', params: [], query: ['slug'] },
  { method: 'GET', path: '/v1/collections/{collection}', params: ['collection'] },
  { method: 'POST', path: '/v1/query', params: [], body: questionBody },
  { method: 'POST', path: '/v1/search', params: [], body: searchBody },
  { method: 'POST', path: '/v1/chats', params: [], body: questionBody },
  { method: 'GET', path: '/v1/chats', params: [], query: ['tenant', 'type', 'user'] },
  { method: 'GET', path: '/v1/chats/{chat}', params: ['chat'] },
  { method: 'POST', path: '/v1/chats/{chat}/messages', params: ['chat'], body: followUpBody },
  { method: 'GET', path: '/v1/chats/{chat}/messages/{message}', params: ['chat', 'message'] },
  { method: 'POST', path: '/v1/chats/{chat}/feedback', params: ['chat'], body: feedbackBody },
  { method: 'POST', path: '/v1/chats/{chat}/messages/{message}/feedback', params: ['chat', 'message'], body: feedbackBody },
  { method: 'POST', path: '/v1/sessions', params: [], body: sessionBody },
  // Last: they delete what the fuzz finds of its own projects.
  { method: 'DELETE', path: '/v1/items', params: [], query: ['item_id', 'collection'] },
  { method: 'DELETE', path: '/v1/items/{item}', params: ['item'] },
  { method: 'DELETE', path: '/v1/collections/{collection}', params: ['collection'] },
  { method: 'DELETE', path: '/v1/tenants/{tenant}', params: ['tenant'] },
];
const POSTS = ROUTES.filter((r) => r.method === 'POST');
const label = (r: Route) => `${r.method} ${r.path}`;
/** Content-Types that are not JSON, or JSON in a charset JSON cannot be written in: a body sent with one is a 400. */
const NOT_JSON = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '*/*', '', 'application/json; charset=latin1'];

/** A project of the run, what it holds, and what must never appear in answers given to anyone else. */
interface Fixture {
  project: Project;
  ids: Record<Kind, string[]>;
  /** Values (service-side ids, a word only its items contain) that only responses to this project may hold. */
  secrets: string[];
  /** Query-string values that name its things (client ids, slugs, users). */
  names: string[];
  /** [chat id, id of one of its messages]. */
  pairs: Array<[string, string]>;
}

async function fixture(tenancy: 'single' | 'multi'): Promise<Fixture> {
  const project = await createProject(tenancy);
  const word = `Marker${randomBytes(5).toString('hex')}`;
  const tenant = (t: number) => (tenancy === 'multi' ? { tenant: t } : {});
  const upsert = await project.upsertAndWait(
    [
      {
        id: 'hours',
        ...tenant(1),
        metadata: { kind: 'faq', year: 2024, draft: false, published: '2024-03-01' },
        data: { title: 'Opening hours', text: `The shop opens at 9am on weekdays. ${word} keeps the keys.` },
      },
      {
        id: 'refunds',
        ...tenant(2),
        metadata: { kind: 'policy', year: 2023, draft: true, published: '2023-05-10' },
        data: { title: 'Refunds', text: `Refunds take five business days. ${word} signs them.` },
      },
    ],
    { slug: 'docs', metadata: { kind: { type: 'enum', options: ['faq', 'policy'] }, year: { type: 'number' }, draft: { type: 'boolean' }, published: { type: 'date' } } },
  );
  const items = [await project.item('hours'), await project.item('refunds')];
  const chat = (await project.post<{ data: Chat }>('/chats', { text: 'When does the shop open?', ...tenant(1), identifier: { id: 'user-1', name: 'Ada' } })).body.data;
  const followUp = (await project.post<{ data: ChatMessage }>(`/chats/${chat.id}/messages`, { text: 'And refunds?' })).body.data;
  const query = (await project.post<{ data: ChatMessage }>('/query', { text: 'How long do refunds take?', ...tenant(2) })).body.data;
  const ids: Record<Kind, string[]> = {
    upsert: [upsert.id],
    item: items.map((i) => i.id),
    collection: [items[0].collection.id],
    chat: [chat.id, query.chat_id],
    message: [...chat.messages.map((m) => m.id), followUp.id, query.id],
    tenant: ['1', '2'],
  };
  const pairs: Array<[string, string]> = [...[...chat.messages, followUp].map((m): [string, string] => [chat.id, m.id]), [query.chat_id, query.id]];
  return {
    project,
    ids,
    secrets: [
      word,
      ...Object.entries(ids)
        .filter(([kind]) => kind !== 'tenant')
        .flatMap(([, v]) => v),
    ],
    names: ['hours', 'refunds', 'docs', 'user-1'],
    pairs,
  };
}

/** JSON with every object's keys sorted (PostgreSQL's jsonb keeps no key order), own `__proto__` keys included. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Every response: below 500, errors in the contract's shape, none of `forbidden` in it. */
function expectContractResponse(r: HttpResponse, forbidden: string[]): void {
  const leaked = forbidden.filter((s) => r.text.includes(s));
  expect({ status: r.status >= 500 ? r.status : 'below 500', leaked }).toEqual({ status: 'below 500', leaked: [] });
  if (r.status >= 400) {
    if (r.status === 422) {
      expect(Object.keys(r.body ?? {}).sort()).toEqual(['errors', 'message']);
      expectShape(r.body, validationErrorSpec);
    } else expectMessageOnly(r.body);
  } else if (r.status === 204) expect(r.text).toBe('');
  else expect(r.body).toEqual(expect.objectContaining({ data: expect.anything() }));
}

describe('fuzzing every route', () => {
  let single: Fixture;
  let multi: Fixture;
  let other: Fixture;
  /** Projects of their own for the deletes, which would otherwise take away what later cases look for. */
  let doomed: Fixture[];

  beforeAll(async () => {
    process.stdout.write(`\n[fuzz] seed ${SEED}, ${RUNS} runs per property (FUZZ_SEED, FUZZ_RUNS to change)\n`);
    [single, multi, other] = await Promise.all([fixture('single'), fixture('multi'), fixture('single')]);
    doomed = await Promise.all([fixture('single'), fixture('multi')]);
  });

  const fixtures = () => [single, multi, other];
  const foreignTo = (f: Fixture) => fixtures().filter((g) => g !== f);
  /** The route with ids of the single-tenant project that exist (a message of the chat named). */
  const withOwnIds = (path: string) => path.replace(/\{(\w+)\}/g, (_, kind: Kind) => (kind === 'message' ? single.pairs[1][1] : single.ids[kind][0]));

  it('covers every operation of the OpenAPI document', async () => {
    const r = await http('GET', '/v1/openapi.json', { key: single.project.key });
    expect(r.status).toBe(200);
    const ops = Object.entries(r.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${(path.startsWith('/v1/') ? path : `/v1${path}`).replace(/\{[^}]+\}/g, '{}')}`),
    );
    expect(ops.filter((o) => o.includes(' /v1/') && !o.endsWith('/openapi.json')).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path.replace(/\{[^}]+\}/g, '{}')}`).sort());
  });

  it.each(ROUTES.map((r) => [label(r), r] as const))('%s: any path, query and body: no 5xx, contract error shapes, nothing of another project', async (_, route) => {
    const callers = route.method === 'DELETE' ? doomed : [single, multi];
    const independent = (f: Fixture) => fc.tuple(...route.params.map((kind) => pathSegment(f.ids[kind], [...foreignTo(f).flatMap((g) => g.ids[kind]), MISSING_ID])));
    // A message is addressed through its chat: a pair that belongs together reaches further.
    const segments = (f: Fixture) => (route.params.length === 2 ? fc.oneof(fc.constantFrom(...f.pairs), independent(f)) : independent(f));
    const input = fc.constantFrom(0, 1).chain((c) =>
      fc.record({
        caller: fc.constant(c),
        segments: route.params.length ? segments(callers[c]) : fc.constant([] as string[]),
        query: route.query
          ? queryString(
              route.query,
              fixtures().flatMap((f) => f.names),
            )
          : fc.constant(''),
        body: route.body ?? fc.constant(undefined),
      }),
    );
    const seen = new Map<number, number>();
    const accepted: Array<[Project, string]> = [];
    await fc.assert(
      fc.asyncProperty(input, async ({ caller, segments: values, query, body }) => {
        const me = callers[caller];
        let i = 0;
        const path = route.path.replace(/\{[^}]+\}/g, () => values[i++]) + query;
        const r = await request(sharedService().url, route.method, path, { key: me.project.key, body });
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        if ((route.path === '/v1/upserts' && r.status === 201) || r.status === 202) accepted.push([me.project, r.body.data.id]);
        expectContractResponse(
          r,
          foreignTo(me).flatMap((f) => f.secrets),
        );
        // Another project's id in the path is an unknown id: never a success, and a plain 404 for lookups.
        const foreign = values.some((v) => foreignTo(me).some((f) => f.secrets.includes(v)));
        if (foreign) expect(r.status).toBeGreaterThanOrEqual(400);
        if (foreign && route.method === 'GET' && values.every((v) => /^[0-9a-f-]{36}$/.test(v))) expect(r.status).toBe(404);
      }),
      params(),
    );
    process.stdout.write(
      `[fuzz] ${label(route)}: ${[...seen]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${n}x${status}`)
        .join(' ')}\n`,
    );
    // A batch the API accepted is processed: validation lets through nothing a worker then fails on.
    for (const [project, id] of accepted) {
      const done = await project.waitForUpsert(id);
      expect({ id, status: done.status, error: done.error }).toEqual({ id, status: 'completed', error: null });
    }
  });

  it.each(POSTS.map((r) => [label(r), r] as const))('%s: malformed JSON and wrong Content-Types are 400 (or 422), in the contract shape', async (_, route) => {
    const me = single;
    const path = withOwnIds(route.path);
    await fc.assert(
      fc.asyncProperty(malformedJson, contentType, async (raw, type) => {
        const r = await request(sharedService().url, 'POST', path, { key: me.project.key, raw, headers: { 'Content-Type': type } });
        expectContractResponse(
          r,
          foreignTo(me).flatMap((f) => f.secrets),
        );
        if (raw !== '' && NOT_JSON.includes(type)) expect(r.status).toBe(400);
      }),
      params(Math.ceil(RUNS / 2)),
    );
  });

  it.each(POSTS.map((r) => [label(r), r] as const))('%s: a body over the size limit is 413 {message}', async (_, route) => {
    const path = withOwnIds(route.path);
    const raw = JSON.stringify({ text: 'x'.repeat(MAX_BODY_BYTES), feedback: 'positive' });
    const r = await single.project.request('POST', path.slice(3), { raw, headers: { 'Content-Type': 'application/json' } });
    expect(r.status).toBe(413);
    expectMessageOnly(r.body);
  });

  it('a hostile Api-Key is 401 {message: "Unauthenticated."} on every route', async () => {
    const latin1 = nastyString.map((s) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '').slice(0, 8000));
    const key = fc.oneof(
      latin1,
      fc.constantFrom('ak_', 'ak_' + 'A'.repeat(43), "ak_' OR '1'='1", 'Bearer x', single.project.key.toUpperCase(), `${single.project.key} `.repeat(2)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), key, async (route, apiKey) => {
        const r = await request(sharedService().url, route.method, withOwnIds(route.path), {
          key: apiKey,
          body: route.method === 'POST' ? { text: 'x', feedback: 'positive', items: [] } : undefined,
        });
        expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
      }),
      params(RUNS * 2),
    );
  });

  it('methods a route does not serve are 404 {message}', async () => {
    for (const route of ROUTES) {
      const path = withOwnIds(route.path);
      const unserved = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !ROUTES.some((r) => r.path === route.path && r.method === m));
      for (const method of unserved) {
        const r = await request(sharedService().url, method, path, { key: single.project.key, body: method === 'GET' ? undefined : { text: 'x' } });
        expect({ method, path: route.path, status: r.status }).toEqual({ method, path: route.path, status: 404 });
        expectMessageOnly(r.body);
      }
    }
  });

  describe('the admin API', () => {
    const ADMIN: Array<{ method: string; path: string; body?: fc.Arbitrary<unknown> }> = [
      { method: 'POST', path: '/admin/projects', body: projectBody },
      { method: 'GET', path: '/admin/projects' },
      { method: 'PATCH', path: '/admin/projects/{project}', body: projectPatchBody },
      { method: 'POST', path: '/admin/projects/{project}/keys', body: keyBody },
      { method: 'GET', path: '/admin/projects/{project}/keys' },
      { method: 'DELETE', path: '/admin/keys/{key}' },
    ];
    // A project of its own: the fuzz renames it, flips its tenancy and revokes its keys.
    let ids: { project: string[]; key: string[] };
    beforeAll(async () => {
      const target = await createProject('single');
      const keys = await Promise.all([1, 2, 3].map(() => admin<{ data: { id: string } }>('POST', `/admin/projects/${target.id}/keys`, { name: 'fuzz' })));
      ids = { project: [target.id], key: [target.keyId, ...keys.map((k) => k.body.data.id)] };
    });

    it.each(ADMIN.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: any path and body: no 5xx, contract error shapes', async (_, route) => {
      const kinds = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as 'project' | 'key');
      const input = fc.record({
        segments: fc.tuple(...kinds.map((kind) => pathSegment(ids[kind], [...single.ids.item, MISSING_ID]))),
        body: route.body ?? fc.constant(undefined),
      });
      await fc.assert(
        fc.asyncProperty(input, async ({ segments: values, body }) => {
          let i = 0;
          const path = route.path.replace(/\{[^}]+\}/g, () => values[i++]);
          const r = await request(sharedService().adminUrl, route.method, path, { body, headers: { Authorization: `Bearer ${sharedService().adminToken}` } });
          expectContractResponse(r, []);
        }),
        params(Math.ceil(RUNS / 2)),
      );
    });

    it('a hostile bearer token is 401 {message: "Unauthenticated."}', async () => {
      const token = nastyString.map((s) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '').slice(0, 8000));
      const header = fc.oneof(
        token.map((t) => `Bearer ${t}`),
        token,
        fc.constantFrom(`Bearer ${sharedService().adminToken}x`, `Basic ${sharedService().adminToken}`, `Bearer ${single.project.key}`),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ADMIN), header, async (route, authorization) => {
          const path = route.path.replace('{project}', ids.project[0]).replace('{key}', MISSING_ID);
          const r = await request(sharedService().adminUrl, route.method, path, {
            body: route.body ? { name: 'x', tenancy: 'single' } : undefined,
            headers: { Authorization: authorization },
          });
          expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
        }),
        params(RUNS),
      );
    });
  });

  describe('inputs that once failed with 500', () => {
    const nul = (path: string) => ({ [path]: [`The ${path} field must not contain NUL characters or unpaired surrogates.`] });

    it('NUL characters and unpaired surrogates are 422 at their field, on every route that takes text', async () => {
      const p = single.project;
      const cases: Array<[string, unknown, Record<string, string[]>]> = [
        ['/upserts', { items: [{ id: 'n', data: { text: 'a\u0000b' } }] }, nul('items.0.data.text')],
        ['/upserts', { items: [{ id: 'n', data: { ['k\u0000']: 'v' } }] }, nul('items.0.data')],
        ['/upserts', { items: [{ id: 'a\u0000', data: { t: 'v' } }] }, nul('items.0.id')],
        ['/upserts', { items: [{ id: 'n', data: { t: 'v' }, metadata: { m: '\ud800' } }] }, nul('items.0.metadata.m')],
        ['/upserts', { items: [{ id: 'n', data: { t: 'x\udfff' } }], collection: { slug: 'docs', name: '\u0000' } }, { ...nul('items.0.data.t'), ...nul('collection.name') }],
        ['/query', { text: 'a\u0000b' }, nul('text')],
        ['/chats', { text: 'a\ud800b' }, nul('text')],
        ['/search', { text: 'refunds', identifier: { id: 'u\u0000' } }, nul('identifier.id')],
        ['/query', { text: 'refunds', collections: ['\u0000'] }, nul('collections.0')],
        ['/query', { text: 'refunds', filter: { kind: 'faq\u0000' } }, nul('filter.kind')],
        [`/chats/${single.ids.chat[0]}/messages`, { text: 'x\u0000' }, nul('text')],
        [`/chats/${single.ids.chat[0]}/feedback`, { feedback: '\ud800' }, nul('feedback')],
        [`/chats/${single.ids.chat[0]}/messages/${single.ids.message[1]}/feedback`, { feedback: '\u0000' }, nul('feedback')],
      ];
      for (const [path, body, errors] of cases) {
        const r = await p.post(path, body);
        expect({ path, status: r.status, errors: r.body.errors }).toEqual({ path, status: 422, errors });
      }
      for (const [path, field] of [
        ['/items?item_id=%00', 'item_id'],
        ['/chats?user=a%00', 'user'],
        ['/upserts?collection=%00', 'collection'],
        ['/collections?slug=%ED%A0%80', 'slug'],
      ]) {
        const r = await p.get(path);
        expect({ path, status: r.status }).toEqual({ path, status: 422 });
        expect(Object.keys(r.body.errors)).toEqual([field]);
      }
    });

    it('bodies nested deeper than 32 levels are 422, however deep', async () => {
      const nest = (n: number) => '{"n":'.repeat(n) + '1' + '}'.repeat(n);
      const post = (path: string, raw: string) => single.project.request('POST', path, { raw, headers: { 'Content-Type': 'application/json' } });
      const r = await post('/upserts', `{"items":[{"id":"deep","data":${nest(50_000)}}]}`);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([`items.0.data${'.n'.repeat(30)}`]);
      expect((await post('/query', `{"text":"x","filter":${nest(40)}}`)).status).toBe(422);
      expect((await post('/upserts', `{"items":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).status).toBe(422);
      expect((await post('/upserts', `{"items":[{"id":"deep-ok","data":${nest(29)}}]}`)).status).toBe(201);
    });

    it('tenants beyond 32-bit integers are 422 wherever a tenant is taken', async () => {
      const big = 2 ** 31;
      const over = (path: string) => ({ [path]: [`The ${path} field must not be greater than 2147483647.`] });
      for (const p of [single.project, multi.project]) {
        expect((await p.post('/upserts', { items: [{ id: 'big', tenant: big, data: { t: 'x' } }] })).body.errors).toEqual(over('items.0.tenant'));
        for (const route of ['/query', '/chats', '/search']) expect((await p.post(route, { text: 'refunds', tenant: 2 ** 53 })).body.errors).toEqual(over('tenant'));
        expect((await p.get('/items?tenant=99999999999')).body.errors).toEqual(over('tenant'));
        expect((await p.get(`/chats?tenant=${big}`)).body.errors).toEqual(over('tenant'));
      }
      const max = await multi.project.post('/search', { text: 'refunds', tenant: 2 ** 31 - 1 });
      expect({ status: max.status, data: max.body.data }).toEqual({ status: 200, data: [] });
    });

    it("keys named like Object's members are kept: an item's data comes back exactly as sent", async () => {
      const data = JSON.parse(
        '{"title":"Prototype keys","text":"The toString key holds a value.","constructor":"c","toString":"s","valueOf":{"constructor":{"x":1}},"hasOwnProperty":[1,{"constructor":2}],"__proto__":{"p":1}}',
      );
      const metadata = JSON.parse('{"constructor":"m","toString":1}');
      await single.project.upsertAndWait([{ id: 'proto-keys', data, metadata }], { slug: 'protos' });
      const item = await single.project.item('proto-keys');
      expect(canonical(item.data)).toBe(canonical(data));
      expect(canonical(item.metadata)).toBe(canonical(metadata));
      const r = await single.project.post('/search', { text: 'toString key value', collections: ['docs'], filter: JSON.parse('{"year":{"constructor":5}}') });
      expect({ status: r.status, errors: r.body.errors }).toEqual({
        status: 422,
        errors: { 'filter.year.constructor': ['The operator constructor is not supported; use $in, $ne, $gt, $gte, $lt or $lte.'] },
      });
    });

    it('arrays where a nested object goes are 422, not a 500 or an upsert that fails later', async () => {
      const object = (path: string) => ({ [path]: [`The ${path} field must be an object.`] });
      const items = [{ id: 'nested', data: { t: 'x' } }];
      const cases: Array<[string, unknown, Record<string, string[]>]> = [
        ['/query', { text: 'refunds', identifier: [] }, object('identifier')],
        ['/chats', { text: 'refunds', identifier: [{ id: 'user-1' }] }, object('identifier')],
        ['/upserts', { items, collection: [] }, object('collection')],
        ['/upserts', { items, collection: [{ slug: 'docs' }] }, object('collection')],
        ['/upserts', { items: [items] }, { items: ['Every element of the items field must be an object.'] }],
        ['/search', { text: 'refunds', limit: JSON.parse('{"constructor":{}}') }, { limit: expect.arrayContaining(['The limit field must be an integer.']) }],
      ];
      for (const [path, body, errors] of cases) {
        const r = await single.project.post(path, body);
        expect({ path, status: r.status, errors: r.body.errors }).toEqual({ path, status: 422, errors });
      }
    });

    it('a project cannot be renamed or re-tenanted to null (422, and it keeps both)', async () => {
      const target = await createProject('single');
      for (const body of [{ name: null }, { tenancy: null }]) {
        const r = await admin('PATCH', `/admin/projects/${target.id}`, body);
        expect({ status: r.status, fields: Object.keys(r.body.errors ?? {}) }).toEqual({ status: 422, fields: Object.keys(body) });
      }
      const listed = (await admin<{ data: Array<{ id: string; name: string; tenancy: string }> }>('GET', '/admin/projects')).body.data.find((p) => p.id === target.id);
      expect(listed).toMatchObject({ name: target.name, tenancy: 'single' });
    });

    it('a URL over the server limit is 431 {message}', async () => {
      const r = await single.project.get(`/items?item_id=${'x'.repeat(100_000)}`);
      expect(r.status).toBe(431);
      expectMessageOnly(r.body);
    });

    it('a path segment that is not valid percent-encoding is 400 {message}, a traversal an unknown id', async () => {
      for (const segment of ['%F0', '%E0%A4%A', '%ED%A0%80']) {
        const r = await single.project.get(`/items/${segment}`);
        expect([400, 404]).toContain(r.status);
        expectMessageOnly(r.body);
      }
      const traversal = await single.project.get(`/items/${encodeLoosely('../../admin/projects')}`);
      expect(traversal.status).toBe(404);
      expectMessageOnly(traversal.body);
    });
  });
});
