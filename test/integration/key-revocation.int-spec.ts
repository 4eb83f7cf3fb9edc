import { Client } from 'pg';
import { Running } from '../../bench/lib/service';
import { twoGateways } from './support/faults';

/**
 * Gateways remember keys they verified a moment ago; revoking a key or changing a project must still take effect at
 * once on every gateway, including one that has just verified the key, and one that lost its connection for
 * announcements.
 */
jest.setTimeout(120000);

describe('API keys across two gateways', () => {
  let deployment: Awaited<ReturnType<typeof twoGateways>>;
  let service: Running;
  let a: string;
  let b: string;

  beforeAll(async () => {
    deployment = await twoGateways();
    ({ service, second: b } = deployment);
    a = service.url;
  });
  afterAll(() => deployment?.stop());

  const admin = async <T>(gateway: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${gateway}/admin${path}`, {
      method,
      headers: { Authorization: `Bearer ${service.adminToken}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  };
  const status = async (gateway: string, key: string, method = 'GET', path = '/items', body?: unknown): Promise<number> =>
    (await fetch(`${gateway}/v1${path}`, { method, headers: { 'Api-Key': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }))
      .status;

  async function project(keys: number, tenancy = 'single'): Promise<{ id: string; keys: Array<{ id: string; key: string }> }> {
    const p = await admin<{ data: { id: string } }>(a, 'POST', '/projects', { name: `keys-${Date.now()}-${Math.random()}`, tenancy });
    const created = [];
    for (let i = 0; i < keys; i++) created.push((await admin<{ data: { id: string; key: string } }>(a, 'POST', `/projects/${p.body.data.id}/keys`, { name: `k${i}` })).body.data);
    return { id: p.body.data.id, keys: created };
  }

  it('refuses a revoked key at once on both gateways, right after both verified it', async () => {
    const { keys } = await project(12);
    const outcomes: string[] = [];
    for (const [i, { id, key }] of keys.entries()) {
      const [via, other] = i % 2 === 0 ? [a, b] : [b, a];
      expect([await status(a, key), await status(b, key), await status(a, key), await status(b, key)]).toEqual([200, 200, 200, 200]);
      expect((await admin(via, 'DELETE', `/keys/${id}`)).status).toBe(204);
      outcomes.push(`${await status(other, key)} ${await status(via, key)}`);
    }
    expect(outcomes).toEqual(keys.map(() => '401 401'));
  });

  it('applies a project change at once on both gateways', async () => {
    const { id, keys } = await project(1);
    const [{ key }] = keys;
    const search = (gateway: string) => status(gateway, key, 'POST', '/search', { text: 'anything' });
    expect([await search(a), await search(b), await search(b)]).toEqual([200, 200, 200]);
    expect((await admin(a, 'PATCH', `/projects/${id}`, { tenancy: 'multi' })).status).toBe(200);
    // A multi-tenant project must name the tenant of a question.
    expect([await search(b), await search(a)]).toEqual([422, 422]);
  });

  it('checks every key in the database while a gateway cannot hear about changes', async () => {
    const { keys } = await project(1);
    const [{ id, key }] = keys;
    expect([await status(b, key), await status(b, key)]).toEqual([200, 200]);
    // Both gateways lose the connection on which changes are announced; the revocation goes unheard.
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    const { rows } = await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'askdata-gateway-keys' AND datname = current_database()`);
    await db.end();
    expect(rows.length).toBe(2);
    await new Promise((r) => setTimeout(r, 200));
    // Verified again meanwhile, and revoked while nobody listens.
    expect([await status(b, key), await status(b, key)]).toEqual([200, 200]);
    expect((await admin(a, 'DELETE', `/keys/${id}`)).status).toBe(204);
    expect(await status(b, key)).toBe(401);
  });
});
