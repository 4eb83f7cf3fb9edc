import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header that carries a delivery's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'Askdata-Signature';

/** A new endpoint's signing secret: 256 random bits. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64url');
}

/** The signature header's value for `body` sent at `unixSeconds`. */
export function signWebhook(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Checks a signature header as a receiver should (docs/api.md has the same in a few lines of Node): the HMAC
 * compared in constant time, and a timestamp no further than `toleranceSeconds` from `nowSeconds`.
 */
export function verifyWebhook(secret: string, header: string, body: string, toleranceSeconds: number, nowSeconds: number): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
