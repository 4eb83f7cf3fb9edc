import { admin, createProject, createProjectOn, itIn, Project, RunningService, sharedService, startDedicatedGateway } from '../support/harness';
import { expectMessageOnly } from '../support/shapes';

/**
 * 429 needs a low limit, so these tests run against a gateway of their own started with RATE_LIMIT_PER_MINUTE=3:
 * standalone, a second standalone instance; distributed, one more gateway process over the shared database and bus.
 */
const LIMIT = 3;

const header = (h: Headers, name: string) => h.get(name);

describe('rate limit headers on the shared service', () => {
  it('every /v1 response carries X-RateLimit-Limit and X-RateLimit-Remaining', async () => {
    const p = await createProject();
    const r = await p.get('/items');
    expect(r.status).toBe(200);
    const limit = Number(header(r.headers, 'x-ratelimit-limit'));
    const remaining = Number(header(r.headers, 'x-ratelimit-remaining'));
    expect(Number.isInteger(limit) && limit > 0).toBe(true);
    expect(Number.isInteger(remaining)).toBe(true);
    expect(remaining).toBeGreaterThanOrEqual(0);
    expect(remaining).toBeLessThan(limit);
    const posted = await p.post('/search', { text: 'anything' });
    expect(header(posted.headers, 'x-ratelimit-limit')).toBe(String(limit));
    expect(header(posted.headers, 'x-ratelimit-remaining')).toMatch(/^\d+$/);
  });
});

describe(`rate limit of ${LIMIT} requests a minute per key (dedicated gateway)`, () => {
  let gw: RunningService | undefined;
  let p1: Project;
  let p2: Project;

  beforeAll(async () => {
    gw = await startDedicatedGateway(sharedService(), { RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    p1 = await createProjectOn(gw);
    p2 = await createProjectOn(gw);
  }, 240_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  it('counts down X-RateLimit-Remaining, then answers 429 with Retry-After', async () => {
    const remaining: Array<string | null> = [];
    for (let i = 0; i < LIMIT; i++) {
      const r = await p1.get('/items');
      expect(r.status).toBe(200);
      expect(header(r.headers, 'x-ratelimit-limit')).toBe(String(LIMIT));
      remaining.push(header(r.headers, 'x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const refused = await p1.get('/items');
    expect(refused.status).toBe(429);
    expectMessageOnly(refused.body);
    const retryAfter = Number(header(refused.headers, 'retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(header(refused.headers, 'x-ratelimit-limit')).toBe(String(LIMIT));
    expect(header(refused.headers, 'x-ratelimit-remaining')).toBe('0');

    const post = await p1.post('/query', { text: 'anything?' });
    expect(post.status).toBe(429);
    expect(header(post.headers, 'retry-after')).toMatch(/^\d+$/);
  });

  it('counts per key: another key is not limited', async () => {
    const r = await p2.get('/collections');
    expect(r.status).toBe(200);
    expect(header(r.headers, 'x-ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  const distributedOnly = itIn('distributed');

  distributedOnly('a key revoked through one gateway is refused at once by another', async () => {
    const p = await createProject();
    const onDedicated = p.via(gw?.url ?? '');
    expect((await onDedicated.get('/items')).status).toBe(200);
    expect((await admin('DELETE', `/admin/keys/${p.keyId}`)).status).toBe(204);
    const r = await onDedicated.get('/items');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: 'Unauthenticated.' });
  });
});
