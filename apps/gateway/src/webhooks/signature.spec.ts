import { createHmac } from 'node:crypto';
import { newWebhookSecret, signWebhook, verifyWebhook } from './signature';

describe('webhook signatures', () => {
  const secret = 'whsec_test';
  const body = '{"id":"e1","type":"upsert.completed"}';

  it('are HMAC-SHA256 of "<t>.<body>" in hex, with the time they were made', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signWebhook(secret, 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verify with the right secret and body within the tolerance, and not otherwise', () => {
    const header = signWebhook(secret, 1700000000, body);
    expect(verifyWebhook(secret, header, body, 300, 1700000100)).toBe(true);
    expect(verifyWebhook('whsec_other', header, body, 300, 1700000100)).toBe(false);
    expect(verifyWebhook(secret, header, body + ' ', 300, 1700000100)).toBe(false);
    // Too old (a replay) or from the future.
    expect(verifyWebhook(secret, header, body, 300, 1700000301)).toBe(false);
    expect(verifyWebhook(secret, header, body, 300, 1699999699)).toBe(false);
    expect(verifyWebhook(secret, 'v1=abc', body, 300, 1700000000)).toBe(false);
    expect(verifyWebhook(secret, header.replace(/v1=../, 'v1=zz'), body, 300, 1700000000)).toBe(false);
  });

  it('use a fresh 256-bit secret per endpoint', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
