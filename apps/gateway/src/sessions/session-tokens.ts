import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a session token says, signed: whose questions a publishable key asks while it lives. */
export interface SessionClaims {
  /** The token's own id. */
  jti: string;
  /** The project whose keys may present it. */
  pid: string;
  tenant: number | null;
  identifier: { id: string; name: string | null; email: string | null } | null;
  collections: string[] | null;
  /** Issued and expiry times, in seconds since the epoch. */
  iat: number;
  exp: number;
}

/** The JWT header of every token: HS256 only, compared byte for byte, so no other algorithm is ever considered. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const MAX_TOKEN_CHARS = 4096;
/** Clocks of two gateways may differ a little: a token issued up to this far ahead is still taken. */
const SKEW_SECONDS = 60;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Session tokens: compact JWTs (HS256) signed with a key of the project's own, derived from the server's secret
 * (HMAC-SHA256 of the project id), so a token signed for one project fails verification with any other's. The
 * signature is compared in constant time before anything in the token is read.
 */
export class SessionTokens {
  constructor(private readonly secret: string) {}

  sign(claims: Omit<SessionClaims, 'jti'> & { jti?: string }): string {
    const body = { ...claims, jti: claims.jti ?? randomBytes(12).toString('base64url') };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `${HEADER}.${payload}.${this.signature(body.pid, `${HEADER}.${payload}`)}`;
  }

  /** The token's claims when it is well formed, signed for this project and not expired; null otherwise. */
  verify(token: string, projectId: string, nowSeconds = Math.floor(Date.now() / 1000)): SessionClaims | null {
    if (token.length > MAX_TOKEN_CHARS) return null;
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p)) || parts[0] !== HEADER) return null;
    const expected = Buffer.from(this.signature(projectId, `${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!isClaims(claims) || claims.pid !== projectId) return null;
    if (claims.exp <= nowSeconds || claims.iat > nowSeconds + SKEW_SECONDS) return null;
    return claims;
  }

  private signature(projectId: string, signed: string): string {
    const key = createHmac('sha256', this.secret).update(`askdata-session:${projectId}`).digest();
    return createHmac('sha256', key).update(signed).digest('base64url');
  }
}

function isClaims(v: unknown): v is SessionClaims {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  const id = c.identifier as Record<string, unknown> | null;
  return (
    typeof c.jti === 'string' &&
    typeof c.pid === 'string' &&
    (c.tenant === null || Number.isInteger(c.tenant)) &&
    (id === null || (typeof id === 'object' && typeof id.id === 'string')) &&
    (c.collections === null || (Array.isArray(c.collections) && c.collections.every((s) => typeof s === 'string'))) &&
    Number.isInteger(c.iat) &&
    Number.isInteger(c.exp)
  );
}
