import { createHmac } from 'node:crypto';
import { SessionClaims, SessionTokens } from './session-tokens';

const NOW = 1_800_000_000;
const A = '019ab000-0000-7000-8000-00000000000a';
const B = '019ab000-0000-7000-8000-00000000000b';
const tokens = new SessionTokens('server secret');
const claims = (more: Partial<SessionClaims> = {}) => ({
  pid: A,
  tenant: 1,
  identifier: { id: 'u-1', name: 'Ann', email: null },
  collections: ['faq'],
  iat: NOW,
  exp: NOW + 3600,
  ...more,
});
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('SessionTokens', () => {
  it('verifies what it signed, for the project it was signed for, until it expires', () => {
    const token = tokens.sign(claims());
    expect(token.split('.')).toHaveLength(3);
    expect(tokens.verify(token, A, NOW)).toMatchObject({ ...claims(), jti: expect.any(String) });
    expect(tokens.verify(token, A, NOW + 3599)).not.toBeNull();
    expect(tokens.verify(token, A, NOW + 3600)).toBeNull();
    expect(tokens.verify(token, A, NOW + 100_000)).toBeNull();
  });

  it('refuses a token of another project, even one that names the other project in its claims', () => {
    expect(tokens.verify(tokens.sign(claims()), B, NOW)).toBeNull();
    const [header, , signature] = tokens.sign(claims()).split('.');
    expect(tokens.verify(`${header}.${b64({ ...claims(), pid: B, jti: 'x' })}.${signature}`, B, NOW)).toBeNull();
  });

  it('refuses tampered claims, signatures and headers', () => {
    const [header, payload, signature] = tokens.sign(claims()).split('.');
    const other = b64({ ...claims(), tenant: 2, jti: 'x' });
    expect(tokens.verify(`${header}.${other}.${signature}`, A, NOW)).toBeNull();
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    expect(tokens.verify(`${header}.${payload}.${flipped}`, A, NOW)).toBeNull();
    expect(tokens.verify(`${header}.${payload}.${signature.slice(0, -2)}`, A, NOW)).toBeNull();
    expect(tokens.verify(`${header}.${payload}.`, A, NOW)).toBeNull();
    const none = b64({ alg: 'none', typ: 'JWT' });
    expect(tokens.verify(`${none}.${payload}.${signature}`, A, NOW)).toBeNull();
    expect(tokens.verify(`${none}.${payload}.`, A, NOW)).toBeNull();
  });

  it('refuses a token signed with another secret, or forged without one', () => {
    expect(tokens.verify(new SessionTokens('another secret').sign(claims()), A, NOW)).toBeNull();
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const payload = b64({ ...claims(), jti: 'x' });
    const forged = createHmac('sha256', 'server secret').update(`${header}.${payload}`).digest('base64url');
    expect(tokens.verify(`${header}.${payload}.${forged}`, A, NOW)).toBeNull();
  });

  it('refuses malformed tokens without throwing', () => {
    for (const bad of ['', 'a', 'a.b', 'a.b.c.d', '...', 'é.é.é', 'x'.repeat(5000), `${'a'.repeat(10)}.${'b'.repeat(10)}.${'c'.repeat(43)}`]) {
      expect(tokens.verify(bad, A, NOW)).toBeNull();
    }
  });

  it('refuses claims of the wrong shape even when signed, and a token issued far in the future', () => {
    const signedWith = (body: unknown) => {
      const good = tokens.sign(claims()).split('.');
      const payload = b64(body);
      const key = createHmac('sha256', 'server secret').update(`askdata-session:${A}`).digest();
      return `${good[0]}.${payload}.${createHmac('sha256', key).update(`${good[0]}.${payload}`).digest('base64url')}`;
    };
    expect(tokens.verify(signedWith({ ...claims(), jti: 'x' }), A, NOW)).not.toBeNull();
    expect(tokens.verify(signedWith({ ...claims(), jti: 'x', exp: '9999999999' }), A, NOW)).toBeNull();
    expect(tokens.verify(signedWith({ ...claims(), jti: 'x', tenant: '1' }), A, NOW)).toBeNull();
    expect(tokens.verify(signedWith({ ...claims(), jti: 'x', collections: [1] }), A, NOW)).toBeNull();
    expect(tokens.verify(signedWith([1, 2]), A, NOW)).toBeNull();
    expect(tokens.verify(tokens.sign(claims({ iat: NOW + 3600, exp: NOW + 7200 })), A, NOW)).toBeNull();
  });
});
