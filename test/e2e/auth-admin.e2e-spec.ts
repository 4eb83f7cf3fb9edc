import { admin, http, MISSING, Project, TIMESTAMP, UUID } from '../support/client';

describe('authentication', () => {
  let project: Project;
  beforeAll(async () => {
    project = await Project.create();
  });

  it.each([
    ['GET', '/v1/items'], ['GET', '/v1/upserts'], ['GET', '/v1/collections'], ['GET', '/v1/chats'], ['POST', '/v1/query'], ['POST', '/v1/upserts'],
  ])('%s %s without a key is 401 {message: "Unauthenticated."}', async (method, path) => {
    const r = await http(method, path, method === 'POST' ? { body: { text: 'x' } } : {});
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('an invalid key is 401', async () => {
    expect((await http('GET', '/v1/items', { key: 'ak_not-a-real-key' })).status).toBe(401);
    expect((await http('GET', '/v1/items', { key: project.key + 'x' })).status).toBe(401);
  });

  it('sends the rate-limit headers of the key', async () => {
    const r = await project.get('/items');
    const limit = Number(r.headers.get('x-ratelimit-limit'));
    expect(limit).toBeGreaterThan(0);
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(limit);
  });

  it('echoes the caller request id, or makes one', async () => {
    const mine = await http('GET', '/v1/items', { key: project.key, headers: { 'X-Request-Id': 'trace-123' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-123');
    expect((await project.get('/items')).headers.get('x-request-id')).toMatch(/\S{8,}/);
  });
});

describe('admin API', () => {
  it('refuses a missing or wrong admin token', async () => {
    expect((await http('GET', '/admin/projects')).status).toBe(401);
    expect((await http('GET', '/admin/projects', { headers: { Authorization: 'Bearer nope' } })).body).toEqual({ message: 'Unauthenticated.' });
  });

  it('creates, lists and updates projects', async () => {
    const created = await admin('POST', '/admin/projects', { name: 'acme', tenancy: 'multi', instructions: 'Be brief.' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.stringMatching(UUID), name: 'acme', tenancy: 'multi', instructions: 'Be brief.', created_at: expect.stringMatching(TIMESTAMP) });
    const listed = await admin('GET', '/admin/projects');
    expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(created.body.data.id);
    const patched = await admin('PATCH', `/admin/projects/${created.body.data.id}`, { name: 'acme two' });
    expect(patched.body.data).toMatchObject({ name: 'acme two', tenancy: 'multi' });
    expect((await admin('PATCH', `/admin/projects/${MISSING}`, { name: 'x' })).status).toBe(404);
  });

  it('validates projects: tenancy must be single or multi', async () => {
    const r = await admin('POST', '/admin/projects', { name: 'x', tenancy: 'many' });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(['tenancy']);
  });

  it('shows a key once, lists keys without secrets, and revocation takes effect at once', async () => {
    const project = await Project.create();
    expect((await project.get('/items')).status).toBe(200);
    const keys = await admin('GET', `/admin/projects/${project.id}/keys`);
    expect(keys.body.data).toHaveLength(1);
    expect(keys.body.data[0]).not.toHaveProperty('key');
    expect(JSON.stringify(keys.body)).not.toContain(project.key);
    expect((await admin('DELETE', `/admin/keys/${project.keyId}`)).status).toBe(204);
    expect((await project.get('/items')).status).toBe(401);
    expect((await admin('DELETE', `/admin/keys/${project.keyId}`)).status).toBe(404);
  });
});

describe('documentation and health', () => {
  it('publishes an OpenAPI 3 document listing every /v1 operation', async () => {
    const r = await http('GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    const ops = Object.entries(r.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(ops.sort()).toEqual(
      [
        'POST /v1/upserts', 'GET /v1/upserts', 'GET /v1/upserts/{upsert}', 'GET /v1/items', 'GET /v1/items/{item}', 'GET /v1/collections',
        'GET /v1/collections/{collection}', 'POST /v1/query', 'POST /v1/chats', 'GET /v1/chats', 'GET /v1/chats/{chat}',
        'POST /v1/chats/{chat}/messages', 'GET /v1/chats/{chat}/messages/{message}', 'POST /v1/chats/{chat}/feedback',
        'POST /v1/chats/{chat}/messages/{message}/feedback', 'POST /v1/search',
      ].sort(),
    );
    const upsert = r.body.paths['/v1/upserts'].post;
    expect(Object.keys(upsert.responses).sort()).toEqual(['201', '400', '401', '413', '422', '429', '503']);
    expect(JSON.stringify(r.body.components.schemas.ItemView)).toContain('upserts');
  });

  it('serves a docs page and system health', async () => {
    const docs = await http('GET', '/docs');
    expect(docs.status).toBe(200);
    expect(String(docs.body)).toContain('<html');
    const health = await http('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.services.map((s: { service: string }) => s.service).sort()).toEqual(['catalog', 'conversation', 'gateway', 'ingestion', 'retrieval']);
    expect((await http('GET', '/health/ready')).status).toBe(200);
    expect(String((await http('GET', '/metrics')).body)).toContain('askdata_http_requests_total');
  });

  it('answers unknown routes with 404 {message}', async () => {
    const r = await http('GET', '/v1/nope');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: 'Not found.' });
  });
});
