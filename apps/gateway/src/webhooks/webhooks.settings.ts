import { setting } from '@askdata/common';

const DAY = 24 * 3600 * 1000;

/** Settings of webhook deliveries (part of the gateway's settings). */
export const webhookSettings = {
  WEBHOOK_TIMEOUT_MS: setting.int('Longest a webhook endpoint may take to answer a delivery; then the attempt failed.', { default: 10000, min: 100, max: 300000 }),
  WEBHOOK_RETRY_MS: setting.int('How long a webhook delivery is retried after its event; then it is given up (failed).', { default: DAY, min: 1000, max: 30 * DAY }),
  WEBHOOK_BACKOFF_MS: setting.int("Wait before a webhook delivery's first retry; each later one waits twice as long (with jitter).", { default: 5000, min: 10, max: DAY }),
  WEBHOOK_BACKOFF_MAX_MS: setting.int('Longest wait between two attempts of a webhook delivery.', { default: 3600000, min: 10, max: DAY }),
  WEBHOOK_DISABLE_AFTER_FAILURES: setting.int('A webhook endpoint is disabled after this many failed attempts in a row.', { default: 50, min: 1, max: 1000000 }),
  WEBHOOK_DISABLE_AFTER_MS: setting.int('A webhook endpoint is disabled once its attempts have failed for this long without one delivered.', {
    default: DAY,
    min: 1000,
    max: 30 * DAY,
  }),
  WEBHOOK_POLL_MS: setting.int("How often the services' webhook outboxes and the due deliveries are looked at.", { default: 1000, min: 10, max: 60000 }),
  WEBHOOK_CONCURRENCY: setting.int('Webhook deliveries a gateway sends at once (to different endpoints).', { default: 8, min: 1, max: 256 }),
  WEBHOOK_LOG_PER_ENDPOINT: setting.int('Finished deliveries kept in the log of each webhook endpoint (older ones are deleted).', { default: 1000, min: 10, max: 1000000 }),
};
