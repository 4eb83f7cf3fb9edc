import { loadConfig } from '@askdata/common';
import { gatewaySettings } from '../gateway.config';
import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  const limiter = (perMinute: string) => new RateLimiter(loadConfig(gatewaySettings, { RATE_LIMIT_PER_MINUTE: perMinute }));

  it('allows the limit per minute per key, then refuses with Retry-After', () => {
    const rl = limiter('3');
    const t = 1_000_000;
    expect([1, 2, 3].map(() => rl.take('k', t)?.remaining)).toEqual([2, 1, 0]);
    const refused = rl.take('k', t);
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterSeconds: 20 });
    expect(rl.take('other', t)?.allowed).toBe(true);
  });

  it('refills over time', () => {
    const rl = limiter('60');
    const t = 5_000_000;
    for (let i = 0; i < 60; i++) rl.take('k', t);
    expect(rl.take('k', t)?.allowed).toBe(false);
    expect(rl.take('k', t + 1000)?.allowed).toBe(true);
    expect(rl.take('k', t + 1000)?.allowed).toBe(false);
  });

  it('is off at 0', () => {
    expect(limiter('0').take('k')).toBeNull();
  });
});
