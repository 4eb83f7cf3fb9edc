import { Counter } from 'prom-client';
import { registry } from '@askdata/common';

/** The gateway's metrics (its HTTP ones are common's). */
export const gatewayMetrics = {
  authFailures: new Counter({
    name: 'askdata_auth_failures_total',
    help: 'Failed authentications at the gateway, by credential (api_key, admin_token) and outcome (rejected: 401; limited: 429, a failed-authentication limit reached).',
    labelNames: ['credential', 'outcome'] as const,
    registers: [registry],
  }),
  unknownKeys: new Counter({
    name: 'askdata_auth_unknown_key_lookups_total',
    help: 'API keys found unknown, by where: database (looked up) or cache (known unknown, no lookup).',
    labelNames: ['source'] as const,
    registers: [registry],
  }),
  listCache: new Counter({
    name: 'askdata_list_cache_total',
    help: 'Gateway list answers by outcome: hit (a kept answer), miss (computed and kept), uncacheable (computed, not kept: an upsert in progress settling, the project changed meanwhile, or too large).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  webhookAttempts: new Counter({
    name: 'askdata_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered (a 2xx), retried (failed, tried again later), failed (failed, given up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
};
