import { setting } from '@askdata/common';

/** Settings of `Idempotency-Key` (part of the gateway's settings). */
export const idempotencySettings = {
  IDEMPOTENCY_KEY_TTL_MS: setting.int('How long a POST sent with an Idempotency-Key is remembered: a retry with that key within this time gets the first answer.', {
    default: 24 * 3600 * 1000,
    min: 60000,
    max: 30 * 24 * 3600 * 1000,
  }),
  IDEMPOTENCY_WAIT_MS: setting.int('How long a retry waits for a first request with its Idempotency-Key still running before answering 409 with Retry-After.', {
    default: 10000,
    min: 0,
    max: 600000,
  }),
};
