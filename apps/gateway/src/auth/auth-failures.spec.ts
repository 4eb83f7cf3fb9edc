import { ConfigError, loadConfig, ServiceError } from '@askdata/common';
import { gatewayMetrics } from '../gateway.metrics';
import { ErrorCode } from '@askdata/contracts';
import type { Request, Response } from 'express';
import { gatewaySettings } from '../gateway.config';
import { AuthFailures, maskCredential } from './auth-failures';
import { addressBlock } from './client-address';

const failures = (env: Record<string, string> = {}) =>
  new AuthFailures(loadConfig(gatewaySettings, { AUTH_FAILURES_PER_ADDRESS: '3', AUTH_FAILURES_PER_CREDENTIAL: '5', AUTH_FAILURE_WINDOW_SECONDS: '60', ...env }));

const from = (ip: string) => ({ ip, socket: {} }) as unknown as Request;

function response(): Response & { headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  return { headers, setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response & { headers: Record<string, string> };
}

/** The status the gateway would answer, and the headers set, for one attempt. */
async function attempt(f: AuthFailures, ip: string, credential: string, correct: boolean, now: number): Promise<{ status: number; headers: Record<string, string> }> {
  const res = response();
  let lookups = 0;
  try {
    await f.authenticate('api_key', from(ip), res, credential, () => (lookups++, correct ? 'caller' : null), now);
    return { status: 200, headers: res.headers };
  } catch (e) {
    const code = (e as ServiceError).code;
    if (code === ErrorCode.RateLimited) return { status: lookups ? 4291 : 429, headers: res.headers };
    if (code === ErrorCode.Unauthenticated) return { status: 401, headers: res.headers };
    throw e;
  }
}

const T = 1_000_000;
const key = (i: number) => `ak_guess${i}_${'x'.repeat(40)}`;

describe('AuthFailures', () => {
  it('refuses an address after its failures, without looking anything up, with Retry-After until the window closes', async () => {
    const f = failures();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt(f, '203.0.113.7', key(i), false, T + i * 1000)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const refused = await attempt(f, '203.0.113.7', key(9), true, T + 10_000);
    expect(refused).toEqual({ status: 429, headers: { 'Retry-After': '50', 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '0' } });
  });

  it('does not hold one address against another, and forgets the failures when the window closes', async () => {
    const f = failures();
    for (let i = 0; i < 4; i++) await attempt(f, '203.0.113.7', key(i), false, T);
    expect((await attempt(f, '198.51.100.2', 'ak_right', true, T)).status).toBe(200);
    expect((await attempt(f, '198.51.100.2', key(7), false, T)).status).toBe(401);
    expect((await attempt(f, '203.0.113.7', key(8), false, T + 59_999)).status).toBe(429);
    expect((await attempt(f, '203.0.113.7', key(8), false, T + 60_000)).status).toBe(401);
    expect((await attempt(f, '203.0.113.7', 'ak_right', true, T + 60_001)).status).toBe(200);
  });

  it('limits wrong credentials sharing a prefix from many addresses, but lets the right one through', async () => {
    const f = failures();
    const prefix = 'ak_Abc1234';
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await attempt(f, `192.0.2.${i}`, `${prefix}wrong${i}`, false, T)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 4291, 4291]);
    expect((await attempt(f, '192.0.2.100', `${prefix}right`, true, T)).status).toBe(200);
    expect((await attempt(f, '192.0.2.100', 'ak_Other999wrong', false, T)).status).toBe(401);
  });

  it('counts the attempts in flight of an address that has failed, so a parallel burst cannot outrun the limit', async () => {
    const f = failures();
    await attempt(f, '203.0.113.8', key(0), false, T);
    let lookups = 0;
    const slowWrong = () => new Promise<null>((ok) => setTimeout(() => (lookups++, ok(null)), 10));
    const burst = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => f.authenticate('api_key', from('203.0.113.8'), response(), key(i + 1), slowWrong, T)));
    expect(lookups).toBe(2);
    expect(burst.filter((r) => r.status === 'rejected' && (r.reason as ServiceError).code === ErrorCode.RateLimited)).toHaveLength(8);
    // An address that has not failed is not held back by its own parallel requests.
    const ok = await Promise.all(Array.from({ length: 10 }, () => f.authenticate('api_key', from('198.51.100.8'), response(), 'ak_right', async () => 'caller', T)));
    expect(ok).toEqual(Array(10).fill('caller'));
  });

  it('counts API keys and admin tokens apart', async () => {
    const f = failures();
    for (let i = 0; i < 3; i++) await attempt(f, '203.0.113.7', key(i), false, T);
    const res = response();
    await expect(f.authenticate('admin_token', from('203.0.113.7'), res, 'wrong', () => null, T)).rejects.toMatchObject({ code: ErrorCode.Unauthenticated });
  });

  it('counts failures and refusals in metrics', async () => {
    const before = async () => Object.fromEntries((await gatewayMetrics.authFailures.get()).values.map((v) => [`${v.labels.credential} ${v.labels.outcome}`, v.value]));
    const start = await before();
    const f = failures();
    for (let i = 0; i < 4; i++) await attempt(f, '203.0.113.9', key(i), false, T);
    const end = await before();
    expect((end['api_key rejected'] ?? 0) - (start['api_key rejected'] ?? 0)).toBe(3);
    expect((end['api_key limited'] ?? 0) - (start['api_key limited'] ?? 0)).toBe(1);
  });
});

describe('maskCredential', () => {
  it('shows at most the prefix, and never more than half', () => {
    expect(maskCredential(`ak_${'A'.repeat(43)}`)).toBe('ak_AAAAAAA…');
    expect(maskCredential('hunter2')).toBe('hun…');
    expect(maskCredential('x')).toBe('…');
  });
});

describe('addressBlock', () => {
  it('keeps IPv4, unwraps IPv4 mapped into IPv6, and takes the /64 of IPv6', () => {
    expect(addressBlock('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBlock('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBlock('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressBlock('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressBlock('2001:0db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBlock('::1')).toBe('0:0:0:0::/64');
  });
});

describe('TRUST_PROXY', () => {
  const parse = (v: string) => loadConfig(gatewaySettings, { TRUST_PROXY: v }).TRUST_PROXY;
  it('takes nothing, a hop count, or addresses and subnets', () => {
    expect(parse('')).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('1')).toBe(1);
    expect(parse('loopback, 10.0.0.0/8,fd00::/8, 192.0.2.1')).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.1']);
  });

  it('refuses true (anyone could name any address) and what is not an address', () => {
    expect(() => parse('true')).toThrow(ConfigError);
    expect(() => parse('true')).toThrow(/TRUST_PROXY.*any peer/);
    expect(() => parse('10.0.0.0/33')).toThrow(/"10.0.0.0\/33" is not an IP address/);
    expect(() => parse('ingress-nginx')).toThrow(/TRUST_PROXY/);
    expect(() => parse('11')).toThrow(/at most 10/);
  });
});
