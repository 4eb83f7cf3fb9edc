import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  admin,
  createProject,
  createProjectOn,
  eventually,
  freePort,
  http,
  Project,
  request,
  ROOT,
  RunningService,
  sharedService,
  startDedicatedGateway,
} from '../support/harness';
import { expectMessageOnly, expectValidation } from '../support/shapes';

/**
 * What an outsider can reach and how often it may guess. The failed-authentication limits are tried on a gateway
 * of its own (low limits, a short window, one trusted proxy in front so that each test can speak from addresses of
 * its own, and its admin paths on a port of their own, in either mode).
 */
const PER_ADDRESS = 5;
const PER_CREDENTIAL = 8;
const WINDOW_SECONDS = 4;

const randomKey = () => `ak_${randomBytes(32).toString('base64url')}`;
/** As the one proxy in front would forward it: whatever the client claimed, then the address the proxy saw. */
const via = (address: string, claimed?: string) => ({ 'X-Forwarded-For': claimed ? `${claimed}, ${address}` : address });

function expectLimited(r: { status: number; headers: Headers; body: unknown }): void {
  expect(r.status).toBe(429);
  expectMessageOnly(r.body);
  expect(r.body).toEqual({ message: 'Too many failed authentication attempts. Retry after the time given in Retry-After.' });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe('failed authentication (dedicated gateway)', () => {
  let gw: RunningService | undefined;
  let project: Project;
  const items = (key: string, headers: Record<string, string>) => request(gw!.url, 'GET', '/v1/items', { key, headers });
  const projects = (token: string, headers: Record<string, string>) =>
    request(gw!.adminUrl, 'GET', '/admin/projects', { headers: { Authorization: `Bearer ${token}`, ...headers } });

  beforeAll(async () => {
    gw = await startDedicatedGateway(sharedService(), {
      TRUST_PROXY: '1',
      AUTH_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
      AUTH_FAILURES_PER_CREDENTIAL: String(PER_CREDENTIAL),
      AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
      ADMIN_PORT: String(await freePort()),
    });
    project = await createProjectOn(gw);
  }, 240_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  it('a burst of wrong keys from one address ends in 429; a right key from another address is unaffected; the limit resets', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS; i++) statuses.push((await items(randomKey(), via('203.0.113.7'))).status);
    expect(statuses).toEqual(Array(PER_ADDRESS).fill(401));
    expectLimited(await items(randomKey(), via('203.0.113.7')));
    // Blocked means blocked: even the right key from that address waits.
    expectLimited(await items(project.key, via('203.0.113.7')));
    expect((await items(project.key, via('198.51.100.2'))).status).toBe(200);
    expect((await items(randomKey(), via('198.51.100.2'))).status).toBe(401);
    await eventually('the window closes', async () => ((await items(project.key, via('203.0.113.7'))).status === 200 ? true : undefined), 30_000);
    expect((await items(randomKey(), via('203.0.113.7'))).status).toBe(401);
  });

  it('the client address is the one the trusted proxy saw, not one the client claims', async () => {
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await items(randomKey(), via('203.0.113.30', `10.9.${i}.1`))).status).toBe(401);
    }
    expectLimited(await items(randomKey(), via('203.0.113.30', '10.9.99.1')));
  });

  it('wrong keys sharing a prefix are limited from any address, and the key with that prefix still works', async () => {
    const prefix = project.key.slice(0, 10);
    const wrong = () =>
      prefix +
      randomBytes(32)
        .toString('base64url')
        .slice(0, project.key.length - 10);
    const statuses: number[] = [];
    for (let i = 0; i < PER_CREDENTIAL; i++) statuses.push((await items(wrong(), via(`192.0.2.${i + 1}`))).status);
    expect(statuses).toEqual(Array(PER_CREDENTIAL).fill(401));
    expectLimited(await items(wrong(), via('192.0.2.100')));
    expect((await items(project.key, via('192.0.2.101'))).status).toBe(200);
  });

  it('a wrong key presented again is not looked up again', async () => {
    const lookups = async (source: string) => {
      const text = await (await fetch(`${gw!.adminUrl}/metrics`)).text();
      return Number(new RegExp(`^askdata_auth_unknown_key_lookups_total\\{source="${source}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    };
    const [db, cached] = [await lookups('database'), await lookups('cache')];
    const key = randomKey();
    expect((await items(key, via('203.0.113.40'))).status).toBe(401);
    expect((await items(key, via('203.0.113.40'))).status).toBe(401);
    expect([(await lookups('database')) - db, (await lookups('cache')) - cached]).toEqual([1, 1]);
  });

  it('the same for the admin token, counted in metrics', async () => {
    const wrongToken = () => `adm_${randomBytes(24).toString('hex')}`;
    for (let i = 0; i < PER_ADDRESS; i++) {
      const r = await projects(wrongToken(), via('203.0.113.50'));
      expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
    }
    expectLimited(await projects(wrongToken(), via('203.0.113.50')));
    expectLimited(await projects(gw!.adminToken, via('203.0.113.50')));
    expect((await projects(gw!.adminToken, via('198.51.100.50'))).status).toBe(200);
    const metrics = await (await fetch(`${gw!.adminUrl}/metrics`)).text();
    expect(Number(/^askdata_auth_failures_total\{credential="admin_token",outcome="rejected"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(PER_ADDRESS);
    expect(Number(/^askdata_auth_failures_total\{credential="admin_token",outcome="limited"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);
    await eventually('the window closes', async () => ((await projects(gw!.adminToken, via('203.0.113.50'))).status === 200 ? true : undefined), 30_000);
  });

  it('never writes a presented credential whole into the log', async () => {
    const key = randomKey();
    const token = `adm_${randomBytes(24).toString('hex')}`;
    for (let i = 0; i < PER_ADDRESS; i++) await items(i === PER_ADDRESS - 1 ? key : randomKey(), via('203.0.113.60'));
    for (let i = 0; i < PER_ADDRESS; i++) await projects(i === PER_ADDRESS - 1 ? token : `adm_${randomBytes(24).toString('hex')}`, via('203.0.113.60'));
    const log = await eventually('the block is logged', async () => {
      const out = gw!.output();
      return /admin_token: \d+ failed attempts by client address 203\.0\.113\.60/.test(out) ? out : undefined;
    });
    expect(log).toMatch(/api_key: \d+ failed attempts by client address 203\.0\.113\.60, ak_\S{7}…/);
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(0, 20));
    expect(log).not.toContain(token);
  });

  it('keeps the admin API, metrics and health off the public port, and the client API off the admin port', async () => {
    for (const path of ['/admin/projects', '/admin/audit', '/metrics', '/health', '/health/ready', '/health/live']) {
      const r = await request(gw!.url, 'GET', path, { headers: { Authorization: `Bearer ${gw!.adminToken}` } });
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
      expectMessageOnly(r.body);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }
    for (const path of ['/v1/items', '/docs', '/v1/openapi.json']) {
      const r = await request(gw!.adminUrl, 'GET', path, { key: project.key });
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
    }
    expect((await request(gw!.adminUrl, 'GET', '/health')).status).toBe(200);
    expect((await request(gw!.url, 'GET', '/v1/items', { key: project.key })).status).toBe(200);
    expect((await request(gw!.url, 'GET', '/docs')).status).toBe(200);
  });

  it('serves the console on the admin port only, with its /v1 requests (admin token and project), and the widget on the public port', async () => {
    const operator = { Authorization: `Bearer ${gw!.adminToken}`, 'Askdata-Project': project.id };
    expect((await request(gw!.adminUrl, 'GET', '/console/')).status).toBe(200);
    expect((await request(gw!.url, 'GET', '/console/')).status).toBe(404);
    expect((await request(gw!.url, 'GET', '/widget.js')).status).toBe(200);
    expect((await request(gw!.adminUrl, 'GET', '/widget.js')).status).toBe(404);
    expect((await request(gw!.adminUrl, 'GET', '/v1/items', { headers: operator })).status).toBe(200);
    // The public port never takes the admin token as a caller of /v1.
    const onPublic = await request(gw!.url, 'GET', '/v1/items', { headers: operator });
    expect(onPublic.status).toBe(401);
    expectMessageOnly(onPublic.body);
  });
});

describe('protective headers', () => {
  const csp = (h: Headers) =>
    Object.fromEntries(
      (h.get('content-security-policy') ?? '')
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    );

  it('API responses: no sniffing, no framing, a policy that allows nothing', async () => {
    const p = await createProject();
    for (const r of [await p.get('/items'), await http('GET', '/v1/items'), await admin('GET', '/admin/projects')]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(csp(r.headers)).toMatchObject({ 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] });
      expect(r.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('/console: scripts, styles and requests from its own origin only, nothing inline; /widget.js readable by other origins', async () => {
    const r = await request(sharedService().adminUrl, 'GET', '/console/');
    expect(r.status).toBe(200);
    expect(csp(r.headers)).toEqual({
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'object-src': ["'none'"],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
    });
    expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);
    for (const [, asset] of r.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
      expect({ asset, status: (await request(sharedService().adminUrl, 'GET', asset)).status }).toEqual({ asset, status: 200 });
    }
    expect((await request(sharedService().adminUrl, 'GET', '/console/assets/missing.js')).status).toBe(404);
    // The console routes itself: any path under it is its page.
    expect((await request(sharedService().adminUrl, 'GET', '/console/projects/x')).text).toBe(r.text);
    const widget = await http('GET', '/widget.js');
    expect(widget.status).toBe(200);
    expect(widget.headers.get('content-type')).toMatch(/javascript/);
    expect(widget.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
  });

  it('/docs: scripts, styles and requests from its own origin only, no inline script, no framing', async () => {
    const r = await http('GET', '/docs');
    expect(r.status).toBe(200);
    const policy = csp(r.headers);
    expect(policy).toMatchObject({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'connect-src': ["'self'"],
      'object-src': ["'none'"],
      'frame-ancestors': ["'none'"],
      'base-uri': ["'none'"],
    });
    // Every script the page loads is a file of this origin (which script-src 'self' allows), none inline.
    const scripts = [...r.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(body.trim()).toBe('');
      const src = /src="([^"]+)"/.exec(attrs)![1];
      const asset = await http('GET', new URL(src, `${sharedService().url}/docs`).pathname);
      expect({ src, status: asset.status }).toEqual({ src, status: 200 });
    }
  });
});

describe('audit log of admin actions', () => {
  const run = promisify(execFile);
  const CLI = join(ROOT, 'dist', 'launcher', 'src', 'admin.js');

  it('records create, rename and revoke with who, what, when and from where; lists them through the API and the CLI; holds no secret', async () => {
    const s = sharedService();
    const created = (await admin('POST', '/admin/projects', { name: 'audited e2e', tenancy: 'single', instructions: 'Be brief.' })).body.data;
    expect((await admin('PATCH', `/admin/projects/${created.id}`, { name: 'audited e2e renamed', tenancy: 'multi' })).status).toBe(200);
    const key = (await admin('POST', `/admin/projects/${created.id}/keys`, { name: 'backend' })).body.data;
    expect((await admin('DELETE', `/admin/keys/${key.id}`)).status).toBe(204);

    const r = await admin('GET', `/admin/audit?project=${created.id}`);
    expect(r.status).toBe(200);
    const entries = r.body.data as Array<Record<string, unknown>>;
    expect(entries.map((e) => e.action)).toEqual(['key.revoked', 'key.created', 'project.updated', 'project.created']);
    const actor = entries[0].actor as string;
    expect(actor).toMatch(/^admin-token:[0-9a-f]{12}$/);
    for (const e of entries) {
      expect(e).toMatchObject({ actor, project_id: created.id, address: expect.stringMatching(/127\.0\.0\.1/) });
      expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
    expect(entries[0]).toMatchObject({ key_id: key.id, details: { name: 'backend', prefix: key.prefix } });
    expect(entries[1]).toMatchObject({ key_id: key.id, details: { name: 'backend', prefix: key.prefix } });
    expect(entries[2].details).toEqual({ name: { from: 'audited e2e', to: 'audited e2e renamed' }, tenancy: { from: 'single', to: 'multi' } });
    expect(entries[3].details).toEqual({ name: 'audited e2e', tenancy: 'single', instructions: true });
    expect(r.body.meta).toMatchObject({ total: 4, current_page: 1 });
    expect(r.text).not.toContain(key.key);
    expect(r.text).not.toContain(s.adminToken);
    expect(r.text).not.toContain(s.adminToken.slice(0, 16));

    const { stdout } = await run(process.execPath, [CLI, '--url', s.adminUrl, '--token', s.adminToken, '--json', 'audit', 'list', '--project', created.id], { env: {} });
    expect(JSON.parse(stdout).data).toEqual(entries);
    const revoked = JSON.parse(
      (await run(process.execPath, [CLI, '--url', s.adminUrl, '--token', s.adminToken, '--json', 'audit', 'list', '--project', created.id, '--action', 'key.revoked'], { env: {} }))
        .stdout,
    );
    expect(revoked.data).toEqual([entries[0]]);
    const text = (await run(process.execPath, [CLI, '--url', s.adminUrl, '--token', s.adminToken, 'audit', 'list', '--project', created.id, '--per-page', '1'], { env: {} }))
      .stdout;
    expect(text).toContain('action: key.revoked');
    expect(text).toContain('page 1 of 4 (4 in all)');
  });

  it('is for admins only, and its filters are checked', async () => {
    expect((await admin('GET', '/admin/audit', undefined, 'wrong')).status).toBe(401);
    expectValidation(await admin('GET', '/admin/audit?project=nope&action=key.eaten&per_page=0'), ['project', 'action', 'per_page']);
  });
});
