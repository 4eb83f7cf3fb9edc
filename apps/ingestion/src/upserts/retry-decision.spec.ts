import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { isOutage, retryDecision } from './retry-decision';

const HOUR = 3600000;
const config = { UPSERT_MAX_ATTEMPTS: 5, UPSERT_RETRY_BACKOFF_MS: 2000, UPSERT_OUTAGE_RETRY_MS: 6 * HOUR, UPSERT_OUTAGE_BACKOFF_MAX_MS: 60000 };
const now = Date.parse('2026-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now - ms);

const unavailable = new ServiceError(ErrorCode.Unavailable, 'The service behind catalog.batch.apply is unavailable.');
const rejected = ServiceError.invalidField('items[0].data', 'The data field must be an object.');

describe('retryDecision', () => {
  it('tells an unavailable service from a rejection of the data', () => {
    expect(isOutage(unavailable)).toBe(true);
    expect(isOutage(rejected)).toBe(false);
    expect(isOutage(new ServiceError(ErrorCode.NotFound, 'Collection not found.'))).toBe(false);
    expect(isOutage(new Error('catalog did not return item a'))).toBe(false);
  });

  it('keeps retrying an outage past UPSERT_MAX_ATTEMPTS while the outage window lasts', () => {
    const d = retryDecision(unavailable, { attempts: 40, outageAttempts: 39, outageSince: ago(2 * HOUR) }, config, now);
    expect(d).toEqual({ final: false, outage: true, delayMs: 60000 });
  });

  it('backs off an outage exponentially from the retry backoff, up to the cap', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((k) => retryDecision(unavailable, { attempts: k + 1, outageAttempts: k, outageSince: k ? ago(1000) : null }, config, now).delayMs);
    expect(delays).toEqual([2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    // A huge count of outage attempts neither overflows nor exceeds the cap.
    expect(retryDecision(unavailable, { attempts: 5000, outageAttempts: 4999, outageSince: ago(1000) }, config, now).delayMs).toBe(60000);
  });

  it('fails a rejection of the data after UPSERT_MAX_ATTEMPTS, not counting the attempts an outage failed', () => {
    expect(retryDecision(rejected, { attempts: 4, outageAttempts: 0, outageSince: null }, config, now)).toEqual({ final: false, outage: false, delayMs: 8000 });
    expect(retryDecision(rejected, { attempts: 5, outageAttempts: 0, outageSince: null }, config, now).final).toBe(true);
    // Ten attempts, six of which met the outage: this is the fourth that counts.
    expect(retryDecision(rejected, { attempts: 10, outageAttempts: 6, outageSince: ago(HOUR) }, config, now)).toEqual({ final: false, outage: false, delayMs: 8000 });
    expect(retryDecision(rejected, { attempts: 11, outageAttempts: 6, outageSince: ago(HOUR) }, config, now).final).toBe(true);
  });

  it('counts an outage as an ordinary attempt once the outage window ran out', () => {
    const late = retryDecision(unavailable, { attempts: 30, outageAttempts: 29, outageSince: ago(6 * HOUR) }, config, now);
    expect(late).toEqual({ final: false, outage: false, delayMs: 2000 });
    expect(retryDecision(unavailable, { attempts: 34, outageAttempts: 29, outageSince: ago(7 * HOUR) }, config, now).final).toBe(true);
  });

  it('with no outage window, fails an outage after UPSERT_MAX_ATTEMPTS like any failure', () => {
    const none = { ...config, UPSERT_OUTAGE_RETRY_MS: 0 };
    expect(retryDecision(unavailable, { attempts: 1, outageAttempts: 0, outageSince: null }, none, now)).toEqual({ final: false, outage: false, delayMs: 2000 });
    expect(retryDecision(unavailable, { attempts: 5, outageAttempts: 0, outageSince: ago(10000) }, none, now).final).toBe(true);
  });
});
