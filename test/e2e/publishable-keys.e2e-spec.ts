import { AskdataClient, AuthenticationError, ForbiddenError, NotFoundError, SessionInput, ValidationError } from '@askdata/client';
import { SessionClaims, SessionTokens } from '../../apps/gateway/src/sessions/session-tokens';
import { admin, Chat, createProject, HttpResponse, MISSING_ID, Project, request, RunningService, sharedService, startDedicatedGateway, Tenancy } from '../support/harness';
import { parseSse } from '../support/sse';
import { expectMessageOnly } from '../support/shapes';

/**
 * Keys a browser may hold (docs/api.md, "Publishable keys and sessions"): a publishable key asks questions from the
 * origins it names and nothing else; in a multi-tenant project only within a session a secret key opened.
 */
const SHOP = 'https://shop.example';
const FAQ = [{ id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays.' }, tenant: 1 }];

interface Browser {
  key: string;
  keyId: string;
  /** A request as the shop's page makes it, without a session: the publishable key and the page's Origin. */
  call<T = any>(method: string, path: string, opts?: { body?: unknown }): Promise<HttpResponse<T>>;
  /** The page's client (packages/client): the publishable key, the page's Origin, and the session token if any. */
  client(session?: string, origin?: string | null): AskdataClient;
  /** The headers of every answer its clients got, in order (a client returns only the bodies of successes). */
  answers: Headers[];
}

async function publishableKey(p: Project, origins: unknown[] = [SHOP]): Promise<Browser> {
  const k = await admin('POST', `/admin/projects/${p.id}/keys`, { name: 'widget', kind: 'publishable', origins });
  if (k.status !== 201) throw new Error(`publishable key: ${k.status} ${k.text}`);
  const key = k.body.data.key as string;
  const answers: Headers[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    answers.push(response.headers);
    return response;
  };
  return {
    key,
    keyId: k.body.data.id,
    answers,
    client: (sessionToken, origin = SHOP) =>
      new AskdataClient({ baseUrl: p.baseUrl, apiKey: key, sessionToken, headers: origin === null ? {} : { Origin: origin }, fetch, maxRetries: 0 }),
    call: (method, path, opts = {}) => request(p.baseUrl, method, `/v1${path}`, { key, body: opts.body, headers: { Origin: SHOP } }),
  };
}

/** The project's server: its client with the secret key. */
const secret = (p: Project) => new AskdataClient({ baseUrl: p.baseUrl, apiKey: p.key });

/** A session token, minted as the page's server does. */
async function session(p: Project, input: SessionInput): Promise<string> {
  return (await secret(p).sessions.create(input)).token;
}

/** What a call threw (the test fails if it did not throw). */
async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => {
      throw new Error(`expected an error, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
}

async function projectWithData(tenancy: Tenancy): Promise<Project> {
  const p = await createProject(tenancy);
  await p.upsertAndWait(tenancy === 'multi' ? FAQ : FAQ.map(({ id, data }) => ({ id, data })), { slug: 'faq' });
  return p;
}

describe('publishable keys: creation and listing', () => {
  it('are pk_ keys with their origins; listed with kind and origins, never the key; existing keys are secret', async () => {
    const p = await createProject();
    const b = await publishableKey(p, [SHOP, 'http://localhost:8080']);
    expect(b.key).toMatch(/^pk_/);
    const listed = await admin('GET', `/admin/projects/${p.id}/keys`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: b.keyId, kind: 'publishable', origins: [SHOP, 'http://localhost:8080'], prefix: b.key.slice(0, 10) }),
      expect.objectContaining({ id: p.keyId, kind: 'secret', origins: [] }),
    ]);
    expect(listed.text).not.toContain(b.key);
    expect(listed.body.data.map((k: { last_used_at: string | null }) => k.last_used_at)).toEqual([null, null]);
  });

  it('show when each key was last used', async () => {
    const p = await createProject();
    const b = await publishableKey(p);
    const before = Date.now();
    expect((await b.call('POST', '/query', { body: { text: 'hello?' } })).status).toBe(201);
    const keys = (await admin('GET', `/admin/projects/${p.id}/keys`)).body.data as Array<{ id: string; last_used_at: string | null }>;
    const used = keys.find((k) => k.id === b.keyId)?.last_used_at;
    expect(Date.parse(used ?? '')).toBeGreaterThanOrEqual(before - 5000);
    expect(keys.find((k) => k.id === p.keyId)?.last_used_at).toBeNull();
  });

  it.each([
    [{ kind: 'publishable' }, 'origins'],
    [{ kind: 'publishable', origins: [] }, 'origins'],
    [{ kind: 'publishable', origins: [SHOP, 'https://shop.example/'] }, 'origins.1'],
    [{ kind: 'publishable', origins: ['*'] }, 'origins.0'],
    [{ kind: 'publishable', origins: 'https://shop.example' }, 'origins'],
    [{ kind: 'secret', origins: [SHOP] }, 'origins'],
    [{ kind: 'public' }, 'kind'],
  ])('refuses %j with 422 at %s', async (body, field) => {
    const p = await createProject();
    const r = await admin('POST', `/admin/projects/${p.id}/keys`, body);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual([field]);
  });
});

describe('the OpenAPI document', () => {
  it('documents POST /v1/sessions, 403 on every /v1 operation, and Askdata-Session on those open to publishable keys', async () => {
    const p = await createProject();
    const doc = (await p.get<{ paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; responses: Record<string, unknown> }>> }>('/openapi.json')).body;
    expect(doc.paths['/v1/sessions'].post.responses['201']).toBeDefined();
    const open: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!path.startsWith('/v1/') || !op.responses) continue;
        expect({ op: `${method} ${path}`, has403: '403' in op.responses }).toEqual({ op: `${method} ${path}`, has403: true });
        if (op.parameters?.some((x) => x.name === 'Askdata-Session')) open.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(open.sort()).toEqual(
      [
        'POST /v1/query',
        'POST /v1/chats',
        'GET /v1/chats/{chat}',
        'POST /v1/chats/{chat}/messages',
        'GET /v1/chats/{chat}/messages/{message}',
        'POST /v1/chats/{chat}/feedback',
        'POST /v1/chats/{chat}/messages/{message}/feedback',
      ].sort(),
    );
  });
});

describe('every route with each kind of key (single-tenant project)', () => {
  let p: Project;
  let b: Browser;
  let chat: Chat;
  let secretChat: Chat;
  let ids: { upsert: string; item: string; collection: string };

  beforeAll(async () => {
    p = await projectWithData('single');
    b = await publishableKey(p);
    const made = await b.call('POST', '/chats', { body: { text: 'When is the shop open?' } });
    if (made.status !== 201) throw new Error(`POST /v1/chats with a publishable key: ${made.status} ${made.text}`);
    chat = made.body.data;
    secretChat = (await p.post('/chats', { text: 'When is the shop open?' })).body.data;
    const item = await p.item('hours');
    ids = { upsert: item.upserts[0].id, item: item.id, collection: item.collection.id };
  });

  const mine = () => `/chats/${chat.id}`;
  const answer = () => chat.messages[1].id;
  // [method, route, path, body, status with a secret key, status with a publishable key]
  const routes: Array<[string, string, () => string, unknown, number, number]> = [
    ['POST', '/query', () => '/query', { text: 'When is the shop open?' }, 201, 201],
    ['POST', '/chats', () => '/chats', { text: 'When is the shop open?' }, 201, 201],
    ['GET', '/chats/{own}', mine, undefined, 200, 200],
    ['POST', '/chats/{own}/messages', () => `${mine()}/messages`, { text: 'And on Sundays?' }, 201, 201],
    ['GET', '/chats/{own}/messages/{answer}', () => `${mine()}/messages/${answer()}`, undefined, 200, 200],
    ['POST', '/chats/{own}/feedback', () => `${mine()}/feedback`, { feedback: 'positive' }, 201, 201],
    ['POST', '/chats/{own}/messages/{answer}/feedback', () => `${mine()}/messages/${answer()}/feedback`, { feedback: 'negative' }, 201, 201],
    ['GET', '/chats', () => '/chats', undefined, 200, 403],
    ['POST', '/search', () => '/search', { text: 'open' }, 200, 403],
    ['POST', '/upserts', () => '/upserts', { items: [{ id: 'x', data: { text: 'x' } }] }, 201, 403],
    ['GET', '/upserts', () => '/upserts', undefined, 200, 403],
    ['GET', '/upserts/{id}', () => `/upserts/${ids.upsert}`, undefined, 200, 403],
    ['GET', '/items', () => '/items', undefined, 200, 403],
    ['GET', '/items/{id}', () => `/items/${ids.item}`, undefined, 200, 403],
    ['GET', '/collections', () => '/collections', undefined, 200, 403],
    ['GET', '/collections/{id}', () => `/collections/${ids.collection}`, undefined, 200, 403],
    ['DELETE', '/items/{unknown}', () => `/items/${MISSING_ID}`, undefined, 404, 403],
    ['DELETE', '/items?item_id=absent', () => '/items?item_id=absent', undefined, 202, 403],
    ['DELETE', '/collections/{unknown}', () => `/collections/${MISSING_ID}`, undefined, 404, 403],
    ['DELETE', '/tenants/9', () => '/tenants/9', undefined, 202, 403],
    ['POST', '/sessions', () => '/sessions', {}, 201, 403],
  ];

  it.each(routes)('%s %s', async (method, _route, path, body, secret, publishable) => {
    const s = await p.request(method, path(), { body });
    expect(s.status).toBe(secret);
    expect(s.headers.get('access-control-allow-origin')).toBeNull();
    const r = await b.call(method, path(), { body });
    expect(r.status).toBe(publishable);
    expect(r.headers.get('access-control-allow-origin')).toBe(SHOP);
    if (publishable === 403) expectMessageOnly(r.body);
  });

  it("never reaches a chat made with the secret key, nor another project's", async () => {
    for (const path of [`/chats/${secretChat.id}`, `/chats/${secretChat.id}/messages/${secretChat.messages[1].id}`]) {
      const r = await b.call('GET', path);
      expect(r.status).toBe(404);
      expectMessageOnly(r.body);
    }
    expect((await b.call('POST', `/chats/${secretChat.id}/messages`, { body: { text: 'more?' } })).status).toBe(404);
    expect((await b.call('POST', `/chats/${secretChat.id}/feedback`, { body: { feedback: 'x' } })).status).toBe(404);
    const other = await publishableKey(await createProject());
    expect((await other.call('GET', `/chats/${chat.id}`)).status).toBe(404);
  });

  it('records a streamed chat as its own too', async () => {
    const r = await b.call('POST', '/chats', { body: { text: 'When is the shop open?', stream: true } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe(SHOP);
    const start = parseSse(r.text).find((e) => e.event === 'start');
    expect((await b.call('GET', `/chats/${start?.data.chat}`)).status).toBe(200);
  });
});

describe('origins and CORS', () => {
  let p: Project;
  let b: Browser;

  beforeAll(async () => {
    p = await createProject();
    b = await publishableKey(p);
  });

  it('answers a preflight from any origin, without credentials, for GET and POST with the API headers', async () => {
    for (const origin of [SHOP, 'https://elsewhere.example']) {
      const r = await request(p.baseUrl, 'OPTIONS', '/v1/query', {
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'api-key, askdata-session, content-type' },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
      expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST');
      expect(r.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('api-key, askdata-session, content-type'));
      expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('lets an allowed origin read the answer, and refuses another origin or none with 403 that only the refused page may read', async () => {
    expect((await b.client().query({ text: 'hello?' })).role).toBe('assistant');
    expect(b.answers.at(-1)?.get('access-control-allow-origin')).toBe(SHOP);
    expect(b.answers.at(-1)?.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    for (const origin of ['https://elsewhere.example', 'http://shop.example', 'https://shop.example:8443', 'null', null]) {
      const r = await failure(b.client(undefined, origin).query({ text: 'hello?' }));
      expect(r).toBeInstanceOf(ForbiddenError);
      expectMessageOnly((r as ForbiddenError).body);
      // A widget on the refused page can read why (the refusal, nothing else); no origin, no header.
      const wellFormed = origin !== null && origin !== 'null';
      expect((r as ForbiddenError).headers.get('access-control-allow-origin')).toBe(wellFormed ? origin : null);
    }
  });

  it('keeps secret keys as they were: no CORS header, and a session token refused (422)', async () => {
    const r = await p.request('GET', '/items', { headers: { Origin: SHOP } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    const withSession = await failure(new AskdataClient({ baseUrl: p.baseUrl, apiKey: p.key, sessionToken: 'x.y.z' }).items.list());
    expect(withSession).toBeInstanceOf(ValidationError);
    expect(Object.keys((withSession as ValidationError).errors)).toEqual(['Askdata-Session']);
  });

  it('is refused at once when revoked', async () => {
    const k = await publishableKey(p);
    expect((await k.client().query({ text: 'hello?' })).role).toBe('assistant');
    expect((await admin('DELETE', `/admin/keys/${k.keyId}`)).status).toBe(204);
    await expect(k.client().query({ text: 'hello?' })).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('sessions (multi-tenant project)', () => {
  let p: Project;
  let b: Browser;
  let ada1: string;

  beforeAll(async () => {
    p = await projectWithData('multi');
    b = await publishableKey(p);
    ada1 = await session(p, { tenant: 1, identifier: { id: 'ada', name: 'Ada' }, collections: ['faq'] });
  });

  it('creates a token with a secret key only, with tenant required and ttl bounded', async () => {
    const made = await secret(p).sessions.create({ tenant: 1, ttl: 600 });
    expect(Object.keys(made).sort()).toEqual(['expires_at', 'token']);
    const expires = Date.parse(made.expires_at) - Date.now();
    expect(expires).toBeGreaterThan(500_000);
    expect(expires).toBeLessThanOrEqual(600_000);
    for (const [body, field] of [
      [{}, 'tenant'],
      [{ tenant: 1, ttl: 86401 }, 'ttl'],
      [{ tenant: 1, ttl: 10 }, 'ttl'],
      [{ tenant: 1, collections: ['Not a slug'] }, 'collections'],
      [{ tenant: 1, identifier: {} }, 'identifier.id'],
    ] as Array<[SessionInput, string]>) {
      const bad = await failure(secret(p).sessions.create(body));
      expect(bad).toBeInstanceOf(ValidationError);
      expect(Object.keys((bad as ValidationError).errors)).toContain(field);
    }
    const fromPage = await failure(b.client(ada1).sessions.create({ tenant: 1 }));
    expect(fromPage).toBeInstanceOf(ForbiddenError);
    expectMessageOnly((fromPage as ForbiddenError).body);
  });

  it('needs a session with a publishable key: none, forged, tampered, expired or of another project is 401', async () => {
    const none = await failure(b.client().query({ text: 'When is the shop open?', tenant: 1 }));
    expect(none).toBeInstanceOf(AuthenticationError);
    const [header, payload, signature] = ada1.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as SessionClaims;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, tenant: 2 })).toString('base64url')}.${signature}`;
    const forged = new SessionTokens('not the secret').sign({ ...claims, tenant: 2 });
    const now = Math.floor(Date.now() / 1000);
    // Signed as the service signs when SESSION_SECRET is unset (with the admin token), but expired an hour ago.
    const expired = new SessionTokens(sharedService().adminToken).sign({ ...claims, iat: now - 7200, exp: now - 3600 });
    const other = await createProject('multi');
    const otherToken = await session(other, { tenant: 1 });
    for (const token of [tampered, forged, expired, otherToken, 'not-a-token', `${header}.${payload}`]) {
      const r = await failure(b.client(token).query({ text: 'When is the shop open?' }));
      expect(r).toBeInstanceOf(AuthenticationError);
      expectMessageOnly((r as AuthenticationError).body);
      expect((r as AuthenticationError).headers.get('access-control-allow-origin')).toBe(SHOP);
    }
  });

  it("asks as the session's tenant and user, within its collections", async () => {
    const chat = await b.client(ada1).chats.create({ text: 'When is the shop open?' });
    expect(chat).toMatchObject({ tenant: 1, user: { id: 'ada', name: 'Ada' } });
    expect(chat.messages[1].sources.map((s) => s.item_id)).toEqual(['hours']);
    const same = await b.client(ada1).query({ text: 'When is the shop open?', tenant: 1, identifier: { id: 'ada' }, collections: ['faq'] });
    expect(same.role).toBe('assistant');
  });

  it('streams a question and a follow-up in a session, as its tenant and user, and the chat stays the session’s', async () => {
    const chat = await b.client(ada1).chats.createStream({ text: 'When is the shop open?' }).final();
    expect(chat).toMatchObject({ tenant: 1, user: { id: 'ada', name: 'Ada' } });
    expect(chat.messages[1].sources.map((s) => s.item_id)).toEqual(['hours']);
    const reply = await b.client(ada1).chats.followUpStream(chat.id, { text: 'And on Sundays?' }).final();
    expect(reply).toMatchObject({ chat_id: chat.id, role: 'assistant' });
    expect((await secret(p).chats.get(chat.id)).messages).toHaveLength(4);
    const bob = await session(p, { tenant: 1, identifier: { id: 'bob' } });
    await expect(b.client(bob).chats.followUpStream(chat.id, { text: 'And on Sundays?' }).final()).rejects.toBeInstanceOf(NotFoundError);
    const query = await b.client(ada1).queryStream({ text: 'When is the shop open?' }).final();
    expect(await secret(p).chats.get(query.chat_id)).toMatchObject({ type: 'query', tenant: 1, user: { id: 'ada' } });
  });

  it.each([
    ['another tenant', { tenant: 2 }],
    ['another user', { identifier: { id: 'bob' } }],
    ['another name for the user', { identifier: { id: 'ada', name: 'Bob' } }],
    ['a collection outside the session', { collections: ['faq', 'secrets'] }],
  ])('refuses a body naming %s (403)', async (_, extra) => {
    const r = await failure(b.client(ada1).chats.create({ text: 'When is the shop open?', ...extra }));
    expect(r).toBeInstanceOf(ForbiddenError);
    expectMessageOnly((r as ForbiddenError).body);
  });

  it('reads and continues a chat only in a session of the same tenant and user', async () => {
    const { id } = await b.client(ada1).chats.create({ text: 'When is the shop open?' });
    const adaAgain = b.client(await session(p, { tenant: 1, identifier: { id: 'ada' } }));
    const bob = await session(p, { tenant: 1, identifier: { id: 'bob' } });
    const adaOfTenant2 = await session(p, { tenant: 2, identifier: { id: 'ada' } });
    const anonymous = await session(p, { tenant: 1 });
    expect((await adaAgain.chats.get(id)).id).toBe(id);
    expect((await adaAgain.chats.followUp(id, { text: 'And on Sundays?' })).chat_id).toBe(id);
    for (const token of [bob, adaOfTenant2, anonymous]) {
      const page = b.client(token);
      await expect(page.chats.get(id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(page.chats.followUp(id, { text: 'And on Sundays?' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(page.chats.feedback(id, { feedback: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    }
  });

  it('never lets a token of tenant 1 read a chat of tenant 2', async () => {
    const tenant2 = b.client(await session(p, { tenant: 2 }));
    const made = await tenant2.chats.create({ text: 'When is the shop open?' });
    expect(made.tenant).toBe(2);
    const r = await failure(b.client(await session(p, { tenant: 1 })).chats.get(made.id));
    expect(r).toBeInstanceOf(NotFoundError);
    expectMessageOnly((r as NotFoundError).body);
    expect((r as NotFoundError).message).not.toContain(made.id);
    // A session without a user keeps its chats to itself.
    expect((await tenant2.chats.get(made.id)).id).toBe(made.id);
  });

  it('keeps Idempotency-Key apart between sessions sharing the key', async () => {
    const bob = await session(p, { tenant: 1, identifier: { id: 'bob' } });
    const idempotencyKey = 'same-key-from-two-pages';
    const a = await b.client(ada1).chats.create({ text: 'When is the shop open?' }, { idempotencyKey });
    const c = await b.client(bob).chats.create({ text: 'When is the shop open?' }, { idempotencyKey });
    expect(b.answers.at(-1)?.get('idempotent-replayed')).toBeNull();
    expect(c.id).not.toBe(a.id);
    expect(c.user?.id).toBe('bob');
  });
});

describe('sessions (single-tenant project)', () => {
  it('are optional, and keep the chats made in them from requests without them', async () => {
    const p = await projectWithData('single');
    const b = await publishableKey(p);
    const ada = b.client(await session(p, { identifier: { id: 'ada' } }));
    const inSession = await ada.chats.create({ text: 'When is the shop open?' });
    expect(inSession.user?.id).toBe('ada');
    const without = await b.client().chats.create({ text: 'When is the shop open?', identifier: { id: 'bob' } });
    expect(without.user?.id).toBe('bob');
    await expect(b.client().chats.get(inSession.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await b.client().chats.get(without.id)).id).toBe(without.id);
    await expect(ada.chats.get(without.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stop standing for anyone once the project becomes multi-tenant', async () => {
    const p = await createProject();
    const b = await publishableKey(p);
    const page = b.client(await session(p, { identifier: { id: 'ada' } }));
    expect((await page.query({ text: 'hello?' })).role).toBe('assistant');
    expect((await admin('PATCH', `/admin/projects/${p.id}`, { tenancy: 'multi' })).status).toBe(200);
    await expect(page.query({ text: 'hello?', tenant: 3 })).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('rate limit per client address with a publishable key (dedicated gateway)', () => {
  let gw: RunningService | undefined;

  beforeAll(async () => {
    gw = await startDedicatedGateway(sharedService(), { RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '2', RATE_LIMIT_PER_MINUTE: '6', TRUST_PROXY: '1' });
  }, 240_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  it('limits each visitor of a page apart, while the key serves the others', async () => {
    const headers = { Authorization: `Bearer ${gw!.adminToken}` };
    const made = await request(gw!.adminUrl, 'POST', '/admin/projects', { headers, body: { name: 'per-address', tenancy: 'single' } });
    const key = await request(gw!.adminUrl, 'POST', `/admin/projects/${made.body.data.id}/keys`, { headers, body: { kind: 'publishable', origins: [SHOP] } });
    const ask = (address: string) => request(gw!.url, 'GET', `/v1/chats/${MISSING_ID}`, { key: key.body.data.key, headers: { Origin: SHOP, 'X-Forwarded-For': address } });
    expect((await ask('198.51.100.1')).status).toBe(404);
    expect((await ask('198.51.100.1')).status).toBe(404);
    const refused = await ask('198.51.100.1');
    expect(refused.status).toBe(429);
    expectMessageOnly(refused.body);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('access-control-allow-origin')).toBe(SHOP);
    // The refused visitor keeps asking: that costs the key (6 a minute) nothing, so two others still get theirs.
    for (let i = 0; i < 5; i++) expect((await ask('198.51.100.1')).status).toBe(429);
    for (const other of ['198.51.100.2', '198.51.100.3']) {
      expect((await ask(other)).status).toBe(404);
      expect((await ask(other)).status).toBe(404);
    }
    expect((await ask('198.51.100.4')).status).toBe(429);
  });
});
