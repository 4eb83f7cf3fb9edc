import { webhookBackoffMs } from './backoff';
import { disableReason } from './delivery-queue';

describe('webhook retry backoff', () => {
  it('doubles from the base after each failed attempt, up to the maximum', () => {
    const top = (attempts: number) => webhookBackoffMs(attempts, 1000, 60000, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(top)).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    expect(top(10000)).toBe(60000);
  });

  it('waits between half and all of that at random (jitter)', () => {
    expect(webhookBackoffMs(3, 1000, 60000, () => 0)).toBe(2000);
    expect(webhookBackoffMs(3, 1000, 60000, () => 0.5)).toBe(3000);
    const waits = new Set(Array.from({ length: 50 }, () => webhookBackoffMs(3, 1000, 60000)));
    expect(waits.size).toBeGreaterThan(10);
    for (const w of waits) expect(w >= 2000 && w <= 4000).toBe(true);
  });
});

describe('an endpoint that keeps failing', () => {
  const config = { WEBHOOK_DISABLE_AFTER_FAILURES: 5, WEBHOOK_DISABLE_AFTER_MS: 3600000 };
  const failed = { ok: false, statusCode: 500, error: 'HTTP 500' };

  it('is disabled after N failed attempts in a row, or after failing for the whole period, saying why', () => {
    expect(disableReason({ consecutive_failures: 4, failing_for_ms: 1000 }, failed, config)).toBeNull();
    expect(disableReason({ consecutive_failures: 5, failing_for_ms: 1000 }, failed, config)).toBe('Disabled after 5 failed attempts in a row (the last: HTTP 500).');
    expect(disableReason({ consecutive_failures: 2, failing_for_ms: 3600000 }, { ok: false, statusCode: null, error: 'ECONNREFUSED' }, config)).toBe(
      'Disabled after failing for 60 minutes without a delivery (the last: ECONNREFUSED).',
    );
  });
});
