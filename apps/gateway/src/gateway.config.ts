import { Bounds } from '@askdata/contracts';
import { answerSettings, commonSettings, ConfigOf, setting, Setting } from '@askdata/common';
import { trustProxySetting } from './http/trust-proxy';
import { idempotencySettings } from './idempotency/idempotency.settings';
import { publishableKeySettings } from './sessions/sessions.settings';
import { webhookSettings } from './webhooks/webhooks.settings';

function optionalPort(help: string): Setting<number | null> {
  const port = setting.int(help, { default: 0, min: 0, max: 65535 });
  return { describe: { help }, parse: (raw, name) => (raw === undefined || raw.trim() === '' ? null : port.parse(raw, name)) };
}

export const gatewaySettings = {
  ...commonSettings,
  ...answerSettings,
  PORT: setting.int('HTTP port of the API (served under /v1).', { default: 3000, min: 0, max: 65535 }),
  ADMIN_PORT: optionalPort(
    'HTTP port of /admin, /metrics and /health, which PORT then does not serve. Unset: 9464 in distributed mode; in standalone mode PORT serves everything. The value of PORT: one port for everything.',
  ),
  ADMIN_TOKEN: setting.string('Bearer token of the admin API. Standalone mode generates one when unset.', { secret: true }),
  MAX_BODY_BYTES: setting.int('Largest request body accepted (413 above).', { default: 10 * 1024 * 1024, min: 1024, max: 1024 ** 3 }),
  MAX_UPSERT_ITEMS: setting.int('Most items in one upsert.', { default: Bounds.upsertItems, min: 1, max: 10000 }),
  MAX_QUESTION_CHARS: setting.int('Longest question.', { default: Bounds.questionChars, min: 1, max: 100000 }),
  MAX_FEEDBACK_CHARS: setting.int('Longest feedback.', { default: Bounds.feedbackChars, min: 1, max: 100000 }),
  PER_PAGE_MAX: setting.int('Largest page size of list routes.', { default: Bounds.perPageMax, min: 1, max: Bounds.perPageCeiling }),
  RATE_LIMIT_PER_MINUTE: setting.int('Requests per minute per API key (0 disables).', { default: 1200, min: 0, max: 10000000 }),
  SSE_KEEP_ALIVE_MS: setting.int('A streamed answer that has sent nothing for this long sends a comment line, so proxies do not close it as idle.', {
    default: 15000,
    min: 100,
    max: 600000,
  }),
  RATE_LIMIT_SYNC_MS: setting.int('Distributed mode: how often gateways tell each other what each key used, so the limit holds across replicas.', {
    default: 200,
    min: 20,
    max: 60000,
  }),
  LIST_CACHE_MAX_BYTES: setting.int('Memory for kept answers of GET /v1/items and /v1/collections, dropped when an upsert of the project settles (0 disables).', {
    default: 64 * 1024 * 1024,
    min: 0,
    max: 16 * 1024 ** 3,
  }),
  LIST_CACHE_TTL_MS: setting.int('Longest time a kept list answer is reused, announcements or not (0 disables the cache).', {
    default: 10000,
    min: 0,
    max: 3600000,
  }),
  LIST_CACHE_PROGRESS_MS: setting.int(
    'Longest time a list answer is reused while upserts of its project are in progress (shown in it, or changing catalog): it then trails them by that much at most, never an upsert settled (0: such answers are computed every time).',
    { default: 1000, min: 0, max: 60000 },
  ),
  HTTP_HEADERS_TIMEOUT_MS: setting.int("Longest time a client may take to send a request's headers; then 408 and the connection is closed.", {
    default: 10000,
    min: 100,
    max: 600000,
  }),
  HTTP_REQUEST_TIMEOUT_MS: setting.int('Longest time a client may take to send a whole request, headers and body; then 408 and the connection is closed.', {
    default: 60000,
    min: 100,
    max: 3600000,
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: setting.int('How long an idle keep-alive connection stays open after a response.', { default: 5000, min: 100, max: 600000 }),
  TRUST_PROXY: trustProxySetting,
  AUTH_FAILURES_PER_ADDRESS: setting.int('Failed authentications (wrong Api-Key or admin token) a client address may make per AUTH_FAILURE_WINDOW_SECONDS before it gets 429.', {
    default: 20,
    min: 1,
    max: 1000000,
  }),
  AUTH_FAILURES_PER_CREDENTIAL: setting.int(
    'Failed authentications with one credential prefix (its first 10 characters), from any address, per window before wrong ones get 429.',
    {
      default: 10,
      min: 1,
      max: 1000000,
    },
  ),
  AUTH_FAILURE_WINDOW_SECONDS: setting.int('Window of the failed-authentication limits, counted from the first failure.', { default: 300, min: 1, max: 86400 }),
  ...idempotencySettings,
  ...publishableKeySettings,
  ...webhookSettings,
};
export type GatewayConfig = ConfigOf<typeof gatewaySettings>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
