import { randomUUID } from 'node:crypto';
import { Chat, createProject, HttpResponse, Project } from '../support/harness';
import { expectValidation } from '../support/shapes';

const FAQ = [
  { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am.' } },
  { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt.' } },
];

const keyed = (p: Project, path: string, body: unknown, key: string): Promise<HttpResponse> => p.request('POST', path, { body, headers: { 'Idempotency-Key': key } });

async function total(p: Project, path: string): Promise<number> {
  const r = await p.get<{ meta: { total: number } }>(path);
  expect(r.status).toBe(200);
  return r.body.meta.total;
}

describe('Idempotency-Key', () => {
  let p: Project;

  beforeAll(async () => {
    p = await createProject();
    await p.upsertAndWait(FAQ);
  });

  it('POST /v1/upserts twice with one key: the first receipt again, marked replayed, and one upsert stored', async () => {
    const before = await total(p, '/upserts?per_page=1');
    const key = randomUUID();
    const first = await keyed(p, '/upserts', { items: [FAQ[0]] }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await keyed(p, '/upserts', { items: [FAQ[0]] }, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await total(p, '/upserts?per_page=1')).toBe(before + 1);
  });

  it('the same body with its keys in another order is the same request', async () => {
    const key = randomUUID();
    const first = await p.request('POST', '/upserts', {
      raw: '{"items":[{"id":"hours","data":{"title":"T","text":"x"}}]}',
      headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
    });
    const again = await p.request('POST', '/upserts', {
      raw: '{"items":[{"data":{"text":"x","title":"T"},"id":"hours"}]}',
      headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
    });
    expect(first.status).toBe(201);
    expect(again.body).toEqual(first.body);
  });

  it('POST /v1/chats twice with one key: one chat, the same question and answer', async () => {
    const before = await total(p, '/chats?per_page=1');
    const key = randomUUID();
    const body = { text: 'When does the shop open on Saturdays?' };
    const first = await keyed(p, '/chats', body, key);
    expect(first.status).toBe(201);
    const again = await keyed(p, '/chats', body, key);
    expect(again.status).toBe(201);
    expect((again.body as { data: Chat }).data).toEqual((first.body as { data: Chat }).data);
    expect(await total(p, '/chats?per_page=1')).toBe(before + 1);
  });

  it('POST /v1/query and a follow-up twice with one key each: one of each', async () => {
    const before = await total(p, '/chats?per_page=1&type=query');
    const q = { text: 'Can items be returned?' };
    const key = randomUUID();
    const first = await keyed(p, '/query', q, key);
    expect(first.status).toBe(201);
    expect((await keyed(p, '/query', q, key)).body).toEqual(first.body);
    expect(await total(p, '/chats?per_page=1&type=query')).toBe(before + 1);

    const chat = (await p.post<{ data: Chat }>('/chats', { text: 'When is the shop open?' })).body.data;
    const followKey = randomUUID();
    const follow = await keyed(p, `/chats/${chat.id}/messages`, { text: 'And on Saturdays?' }, followKey);
    expect(follow.status).toBe(201);
    expect((await keyed(p, `/chats/${chat.id}/messages`, { text: 'And on Saturdays?' }, followKey)).body).toEqual(follow.body);
    const stored = await p.get<{ data: Chat }>(`/chats/${chat.id}`);
    expect(stored.body.data.messages).toHaveLength(4);
  });

  it('the same key with another body or path is 422 and does nothing', async () => {
    const key = randomUUID();
    expect((await keyed(p, '/upserts', { items: [FAQ[0]] }, key)).status).toBe(201);
    const before = await total(p, '/upserts?per_page=1');
    const other = await keyed(p, '/upserts', { items: [FAQ[1]] }, key);
    expectValidation(other, ['Idempotency-Key']);
    const elsewhere = await keyed(p, '/query', { text: 'Can items be returned?' }, key);
    expectValidation(elsewhere, ['Idempotency-Key']);
    expect(await total(p, '/upserts?per_page=1')).toBe(before);
  });

  it("a key is the project's own: another project with the same key does its own work", async () => {
    const other = await createProject();
    const key = randomUUID();
    const mine = await keyed(p, '/upserts', { items: [FAQ[0]] }, key);
    const theirs = await keyed(other, '/upserts', { items: [FAQ[0]] }, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((theirs.body as { data: { id: string } }).data.id).not.toBe((mine.body as { data: { id: string } }).data.id);
  });

  it('a refusal is the first answer too: the same invalid request is refused again, marked replayed', async () => {
    const key = randomUUID();
    const first = await keyed(p, '/upserts', { items: [] }, key);
    expectValidation(first, ['items']);
    const again = await keyed(p, '/upserts', { items: [] }, key);
    expect(again.status).toBe(422);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'a b'],
  ])('a key %s is 422', async (_, key) => {
    const before = await total(p, '/upserts?per_page=1');
    expectValidation(await keyed(p, '/upserts', { items: [FAQ[0]] }, key), ['Idempotency-Key']);
    expect(await total(p, '/upserts?per_page=1')).toBe(before);
  });

  it('concurrent requests with one key: one chat is created and every request gets its answer', async () => {
    const before = await total(p, '/chats?per_page=1');
    const key = randomUUID();
    const body = { text: 'What are the opening hours on weekdays?' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => keyed(p, '/chats', body, key)));
    const created = answers.filter((a) => a.status === 201);
    // Each waits for the first (IDEMPOTENCY_WAIT_MS) and gets its answer; one still waiting after that gets 409.
    for (const a of answers) expect([201, 409]).toContain(a.status);
    for (const a of answers.filter((x) => x.status === 409)) expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(created.length).toBeGreaterThan(0);
    for (const a of created) expect(a.body).toEqual(created[0].body);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await total(p, '/chats?per_page=1')).toBe(before + 1);
  });

  it('the OpenAPI document gives every POST of /v1 the Idempotency-Key header, the replay marker and 409', async () => {
    type Operation = { parameters?: Array<{ name: string; in: string }>; responses: Record<string, { headers?: Record<string, unknown> }> };
    const doc = (await p.get<{ paths: Record<string, { post?: Operation }> }>('/openapi.json')).body;
    const posts = Object.entries(doc.paths).filter(([path, item]) => path.startsWith('/v1/') && item.post);
    expect(posts.map(([path]) => path).sort()).toEqual(
      [
        '/v1/chats',
        '/v1/chats/{chat}/feedback',
        '/v1/chats/{chat}/messages',
        '/v1/chats/{chat}/messages/{message}/feedback',
        '/v1/query',
        '/v1/search',
        '/v1/sessions',
        '/v1/upserts',
      ].sort(),
    );
    for (const [, { post }] of posts) {
      expect(post!.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
      expect(Object.keys(post!.responses['409'].headers ?? {})).toContain('Retry-After');
      const success = Object.entries(post!.responses).find(([status]) => status.startsWith('2'))!;
      expect(Object.keys(success[1].headers ?? {})).toContain('Idempotent-Replayed');
    }
  });

  it('a POST without a key is not affected: two chats', async () => {
    const before = await total(p, '/chats?per_page=1');
    const body = { text: 'Can items be returned?' };
    await p.post('/chats', body);
    await p.post('/chats', body);
    expect(await total(p, '/chats?per_page=1')).toBe(before + 2);
  });
});
