import { Bounds } from '@askdata/contracts';
import { answerSettings, commonSettings, ConfigOf, setting } from '@askdata/common';
import { idempotencySettings } from './idempotency/idempotency.settings';

export const gatewaySettings = {
  ...commonSettings,
  ...answerSettings,
  PORT: setting.int('HTTP port of the API (served under /v1).', { default: 3000, min: 0, max: 65535 }),
  HOST: setting.requiredString('Address the HTTP server binds to.', { default: '0.0.0.0' }),
  ADMIN_TOKEN: setting.string('Bearer token of the admin API. Standalone mode generates one when unset.', { secret: true }),
  MAX_BODY_BYTES: setting.int('Largest request body accepted (413 above).', { default: 10 * 1024 * 1024, min: 1024, max: 1024 ** 3 }),
  MAX_UPSERT_ITEMS: setting.int('Most items in one upsert.', { default: Bounds.upsertItems, min: 1, max: 10000 }),
  MAX_QUESTION_CHARS: setting.int('Longest question.', { default: Bounds.questionChars, min: 1, max: 100000 }),
  MAX_FEEDBACK_CHARS: setting.int('Longest feedback.', { default: Bounds.feedbackChars, min: 1, max: 100000 }),
  PER_PAGE_MAX: setting.int('Largest page size of list routes.', { default: Bounds.perPageMax, min: 1, max: Bounds.perPageCeiling }),
  RATE_LIMIT_PER_MINUTE: setting.int('Requests per minute per API key (0 disables).', { default: 1200, min: 0, max: 10000000 }),
  RATE_LIMIT_SYNC_MS: setting.int('Distributed mode: how often gateways tell each other what each key used, so the limit holds across replicas.', {
    default: 200,
    min: 20,
    max: 60000,
  }),
  LIST_CACHE_MAX_BYTES: setting.int('Memory for kept answers of GET /v1/items and /v1/collections, dropped when catalog announces a change of the project (0 disables).', {
    default: 64 * 1024 * 1024,
    min: 0,
    max: 16 * 1024 ** 3,
  }),
  LIST_CACHE_TTL_MS: setting.int('Longest time a kept list answer is reused, announcements or not (0 disables the cache).', {
    default: 10000,
    min: 0,
    max: 3600000,
  }),
  TRUST_PROXY: setting.bool('Trust X-Forwarded-* headers (behind an ingress or load balancer).', { default: false }),
  ...idempotencySettings,
};
export type GatewayConfig = ConfigOf<typeof gatewaySettings>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
