import { admin, createProject, http, MALFORMED_IDS, request, MISSING_ID, itIn, Project, sharedService, TIMESTAMP, UUID } from '../support/harness';
import { expectMessageOnly, expectShape, expectValidation, nullable, str, timestamp, uuid } from '../support/shapes';

/** The 16 /v1 operations: the 15 of interface.md plus POST /search. Path ids are well-formed but unknown. */
const OPERATIONS: Array<[string, string, unknown]> = [
  ['POST', '/v1/upserts', { items: [{ id: 'a', data: { t: 'x' } }] }],
  ['GET', '/v1/upserts', undefined],
  ['GET', `/v1/upserts/${MISSING_ID}`, undefined],
  ['GET', '/v1/items', undefined],
  ['GET', `/v1/items/${MISSING_ID}`, undefined],
  ['GET', '/v1/collections', undefined],
  ['GET', `/v1/collections/${MISSING_ID}`, undefined],
  ['POST', '/v1/query', { text: 'When are you open?' }],
  ['POST', '/v1/chats', { text: 'When are you open?' }],
  ['GET', '/v1/chats', undefined],
  ['GET', `/v1/chats/${MISSING_ID}`, undefined],
  ['POST', `/v1/chats/${MISSING_ID}/messages`, { text: 'and then?' }],
  ['GET', `/v1/chats/${MISSING_ID}/messages/${MISSING_ID}`, undefined],
  ['POST', `/v1/chats/${MISSING_ID}/feedback`, { feedback: 'positive' }],
  ['POST', `/v1/chats/${MISSING_ID}/messages/${MISSING_ID}/feedback`, { feedback: 'positive' }],
  ['POST', '/v1/search', { text: 'When are you open?' }],
];

describe('authentication of /v1', () => {
  let project: Project;
  beforeAll(async () => {
    project = await createProject();
  });

  it.each(OPERATIONS)('%s %s without Api-Key is 401 {message: "Unauthenticated."}', async (method, path, body) => {
    const r = await http(method, path, { body });
    expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
  });

  it.each(OPERATIONS)('%s %s with an invalid Api-Key is 401 {message: "Unauthenticated."}', async (method, path, body) => {
    for (const key of ['ak_not-a-real-key', project.key + 'x', project.key.slice(0, -1), '']) {
      const r = await http(method, path, { key, body });
      expect({ key, status: r.status, body: r.body }).toEqual({ key, status: 401, body: { message: 'Unauthenticated.' } });
    }
  });

  it('does not take the admin token as an API key, nor an API key as the admin token', async () => {
    const s = sharedService();
    expect((await http('GET', '/v1/items', { key: s.adminToken })).status).toBe(401);
    expect((await http('GET', '/v1/items', { headers: { Authorization: `Bearer ${project.key}` } })).status).toBe(401);
    expect((await admin('GET', '/admin/projects', undefined, project.key)).status).toBe(401);
  });

  it('a valid key reaches its project', async () => {
    const r = await project.get('/items');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
  });
});

describe('the console: the admin token acting in a project (Askdata-Project)', () => {
  const as = (project: string, token = sharedService().adminToken, headers: Record<string, string> = {}) => ({
    headers: { Authorization: `Bearer ${token}`, 'Askdata-Project': project, ...headers },
  });
  const onAdminPort = (method: string, path: string, opts: Parameters<typeof request>[3]) => request(sharedService().adminUrl, method, path, opts);

  it("reads and asks in that project as its secret key would, and sees no other project's data", async () => {
    const [mine, other] = await Promise.all([createProject(), createProject()]);
    await mine.upsertAndWait([{ id: 'hours', data: { text: 'Open from 9am to 5pm.' } }]);
    await other.upsertAndWait([{ id: 'secret', data: { text: 'Another project.' } }]);
    const items = await onAdminPort('GET', '/v1/items', as(mine.id));
    expect(items.status).toBe(200);
    expect(items.body.data.map((i: { item_id: string }) => i.item_id)).toEqual(['hours']);
    const answer = await onAdminPort('POST', '/v1/query', { ...as(mine.id), body: { text: 'When are you open?' } });
    expect(answer.status).toBe(201);
    expect(answer.body.data.sources.map((s: { item_id: string }) => s.item_id)).toEqual(['hours']);
  });

  it('is 401 with a wrong token, 404 for an unknown project, 422 with a session token', async () => {
    const p = await createProject();
    const wrong = await onAdminPort('GET', '/v1/items', as(p.id, 'adm_wrong'));
    expect({ status: wrong.status, body: wrong.body }).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    for (const id of [MISSING_ID, 'not-a-project']) {
      const r = await onAdminPort('GET', '/v1/items', as(id));
      expect(r.status).toBe(404);
      expectMessageOnly(r.body);
    }
    const withSession = await onAdminPort('GET', '/v1/items', as(p.id, undefined, { 'Askdata-Session': 'x.y.z' }));
    expect(withSession.status).toBe(422);
    expect(Object.keys(withSession.body.errors)).toEqual(['Askdata-Session']);
  });
});

describe('admin API: an item as the search index holds it', () => {
  it("lists the item's title, language and chunks; 404 for an unknown project or item, or another project's item", async () => {
    const [p, other] = await Promise.all([createProject(), createProject()]);
    const text = 'Returns are accepted within 30 days with the receipt. Refunds go back to the card used to pay.';
    await p.upsertAndWait([{ id: 'returns', data: { title: 'Returns', text } }]);
    const item = await p.item('returns');
    const r = await admin('GET', `/admin/projects/${p.id}/items/${item.id}/chunks`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ title: 'Returns', language: 'en' });
    expect(r.body.data.chunks.join(' ')).toContain('within 30 days');
    for (const path of [
      `/admin/projects/${MISSING_ID}/items/${item.id}/chunks`,
      `/admin/projects/${p.id}/items/${MISSING_ID}/chunks`,
      `/admin/projects/${p.id}/items/nope/chunks`,
      `/admin/projects/${other.id}/items/${item.id}/chunks`,
    ]) {
      const missing = await admin('GET', path);
      expect({ path, status: missing.status }).toEqual({ path, status: 404 });
      expectMessageOnly(missing.body);
    }
    expect((await admin('GET', `/admin/projects/${p.id}/items/${item.id}/chunks`, undefined, 'adm_wrong')).status).toBe(401);
  });
});

describe('admin API', () => {
  const ROUTES: Array<[string, string, unknown]> = [
    ['POST', '/admin/projects', { name: 'x', tenancy: 'single' }],
    ['GET', '/admin/projects', undefined],
    ['PATCH', `/admin/projects/${MISSING_ID}`, { name: 'y' }],
    ['POST', `/admin/projects/${MISSING_ID}/keys`, { name: 'k' }],
    ['GET', `/admin/projects/${MISSING_ID}/keys`, undefined],
    ['DELETE', `/admin/keys/${MISSING_ID}`, undefined],
  ];

  it.each(ROUTES)('%s %s is 401 without or with a wrong admin token', async (method, path, body) => {
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: 'Bearer wrong-token' },
      { Authorization: `Basic ${sharedService().adminToken}` },
      { Authorization: sharedService().adminToken },
    ]) {
      const r = await request(sharedService().adminUrl, method, path, { body, headers });
      expect({ headers, status: r.status }).toEqual({ headers, status: 401 });
      expectMessageOnly(r.body);
    }
  });

  it('creates a project (201) with every field, and lists it', async () => {
    const created = await admin('POST', '/admin/projects', { name: 'acme e2e', tenancy: 'multi', instructions: 'Answer in one sentence.' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(UUID),
      name: 'acme e2e',
      tenancy: 'multi',
      instructions: 'Answer in one sentence.',
      created_at: expect.stringMatching(TIMESTAMP),
    });
    const plain = await admin('POST', '/admin/projects', { name: 'plain e2e', tenancy: 'single' });
    expect(plain.status).toBe(201);
    expectShape(plain.body.data, { id: uuid, name: str, tenancy: str, instructions: nullable(str), created_at: timestamp });
    expect(plain.body.data).toMatchObject({ name: 'plain e2e', tenancy: 'single' });

    const list = await admin('GET', '/admin/projects');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(expect.arrayContaining([expect.objectContaining(created.body.data), expect.objectContaining(plain.body.data)]));
  });

  it('validates new projects with 422', async () => {
    expectValidation(await admin('POST', '/admin/projects', { name: 'x', tenancy: 'many' }), ['tenancy']);
    expectValidation(await admin('POST', '/admin/projects', { tenancy: 'single' }), ['name']);
    expectValidation(await admin('POST', '/admin/projects', { name: 'x' }), ['tenancy']);
  });

  it('updates a project with PATCH; unknown and malformed ids are 404', async () => {
    const created = (await admin('POST', '/admin/projects', { name: 'before e2e', tenancy: 'single' })).body.data;
    const patched = await admin('PATCH', `/admin/projects/${created.id}`, { name: 'after e2e', instructions: 'Be brief.' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ ...created, name: 'after e2e', instructions: 'Be brief.' });
    const listed = (await admin('GET', '/admin/projects')).body.data.find((p: { id: string }) => p.id === created.id);
    expect(listed).toMatchObject({ id: created.id, name: 'after e2e', instructions: 'Be brief.', tenancy: 'single' });
    for (const id of [MISSING_ID, ...MALFORMED_IDS]) {
      const r = await admin('PATCH', `/admin/projects/${encodeURIComponent(id)}`, { name: 'x' });
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
      expectMessageOnly(r.body);
    }
  });

  it('issues keys shown once (201), lists them without secrets', async () => {
    const project = await createProject();
    const k = await admin('POST', `/admin/projects/${project.id}/keys`, { name: 'backend' });
    expect(k.status).toBe(201);
    expect(k.body.data).toEqual({
      id: expect.stringMatching(UUID),
      name: 'backend',
      key: expect.any(String),
      prefix: expect.any(String),
      kind: 'secret',
      origins: [],
      created_at: expect.stringMatching(TIMESTAMP),
      last_used_at: null,
    });
    expect(k.body.data.key.startsWith(k.body.data.prefix)).toBe(true);
    expect(k.body.data.prefix.length).toBeLessThan(k.body.data.key.length);
    const unnamed = await admin('POST', `/admin/projects/${project.id}/keys`, {});
    expect(unnamed.status).toBe(201);
    expect(unnamed.body.data.key).not.toBe(k.body.data.key);

    const list = await admin('GET', `/admin/projects/${project.id}/keys`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id).sort()).toEqual([project.keyId, k.body.data.id, unnamed.body.data.id].sort());
    for (const key of list.body.data) {
      expectShape(key, { id: uuid, prefix: str, created_at: timestamp });
      expect(key).not.toHaveProperty('key');
    }
    for (const secret of [project.key, k.body.data.key, unnamed.body.data.key]) expect(list.text).not.toContain(secret);

    // Every key works and selects the same project.
    await project.upsertAndWait([{ id: 'k1', data: { text: 'keys' } }]);
    for (const key of [k.body.data.key, unnamed.body.data.key]) {
      const items = await http('GET', '/v1/items', { key });
      expect(items.status).toBe(200);
      expect(items.body.data.map((i: { item_id: string }) => i.item_id)).toEqual(['k1']);
    }
  });

  it('404s keys of unknown projects and unknown keys', async () => {
    for (const id of [MISSING_ID, 'not-an-id']) {
      const create = await admin('POST', `/admin/projects/${id}/keys`, { name: 'x' });
      expect(create.status).toBe(404);
      expectMessageOnly(create.body);
      expect((await admin('GET', `/admin/projects/${id}/keys`)).status).toBe(404);
      const del = await admin('DELETE', `/admin/keys/${id}`);
      expect(del.status).toBe(404);
      expectMessageOnly(del.body);
    }
  });

  it("revokes a key with 204: it is refused at once, the project's other keys keep working", async () => {
    const project = await createProject();
    const other = (await admin('POST', `/admin/projects/${project.id}/keys`, { name: 'other' })).body.data;
    expect((await project.get('/items')).status).toBe(200);
    const del = await admin('DELETE', `/admin/keys/${project.keyId}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    for (const [method, path, body] of OPERATIONS) {
      const r = await http(method, path, { key: project.key, body });
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 401, body: { message: 'Unauthenticated.' } });
    }
    expect((await http('GET', '/v1/items', { key: other.key })).status).toBe(200);
    const keys = (await admin('GET', `/admin/projects/${project.id}/keys`)).body.data;
    expect(keys.find((k: { id: string }) => k.id === other.id)).toBeDefined();
  });

  const standaloneOnly = itIn('standalone');
  const distributedOnly = itIn('distributed');

  standaloneOnly('standalone: the first start created project "default" (single-tenant) whose printed key works', async () => {
    const { defaultKey } = sharedService();
    expect(defaultKey).toEqual(expect.any(String));
    const projects = (await admin('GET', '/admin/projects')).body.data;
    expect(projects.filter((p: { name: string }) => p.name === 'default')).toEqual([expect.objectContaining({ name: 'default', tenancy: 'single' })]);
    const r = await http('GET', '/v1/collections', { key: defaultKey ?? '' });
    expect(r.status).toBe(200);
  });

  distributedOnly('distributed: there is no bootstrap project', async () => {
    const projects = (await admin('GET', '/admin/projects')).body.data;
    expect(projects.filter((p: { name: string }) => p.name === 'default')).toEqual([]);
  });
});

describe('documentation, health, unknown routes', () => {
  const EXPECTED = [
    'POST /upserts',
    'GET /upserts',
    'GET /upserts/{}',
    'GET /items',
    'GET /items/{}',
    'GET /collections',
    'GET /collections/{}',
    'POST /query',
    'POST /chats',
    'GET /chats',
    'GET /chats/{}',
    'POST /chats/{}/messages',
    'GET /chats/{}/messages/{}',
    'POST /chats/{}/feedback',
    'POST /chats/{}/messages/{}/feedback',
    'POST /search',
  ];

  it('GET /v1/openapi.json is an OpenAPI 3 document listing all 16 /v1 operations', async () => {
    const project = await createProject();
    const r = await http('GET', '/v1/openapi.json', { key: project.key });
    expect(r.status).toBe(200);
    expect(String(r.body.openapi)).toMatch(/^3\./);
    const ops = Object.entries(r.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => {
          // Paths may be written with the /v1 prefix or under a server URL ending in /v1.
          const rel = path.startsWith('/v1/') ? path.slice(3) : path;
          return `${m.toUpperCase()} ${rel.replace(/\{[^}]+\}/g, '{}')}`;
        }),
    );
    expect(ops).toEqual(expect.arrayContaining(EXPECTED));
    expect(ops.filter((o) => EXPECTED.includes(o))).toHaveLength(16);
    const message = (r.body.components as { schemas: Record<string, { properties: Record<string, { enum?: unknown; nullable?: unknown }> }> }).schemas.MessageView;
    expect(message.properties.finish_reason).toMatchObject({ enum: ['complete', 'truncated', 'refused'], nullable: true });
  });

  it('serves the API reference at /docs', async () => {
    const r = await http('GET', '/docs');
    expect(r.status).toBe(200);
    expect(r.text.toLowerCase()).toContain('<html');
  });

  it('GET /health is 200 when the system is up', async () => {
    const r = await admin('GET', '/health');
    expect(r.status).toBe(200);
  });

  it('unknown /v1 routes are 404 {message}', async () => {
    const project = await createProject();
    for (const path of ['/v1/nope', `/v1/items/${MISSING_ID}/nope`, '/v2/items']) {
      const r = await http('GET', path, { key: project.key });
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
      expectMessageOnly(r.body);
    }
  });
});
