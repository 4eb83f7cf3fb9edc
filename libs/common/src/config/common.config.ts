import { setting } from './settings';

/** Settings every service reads: where its database and bus are. */
export const commonSettings = {
  DATABASE_URL: setting.url('PostgreSQL connection URL (distributed mode).', {
    default: 'postgres://postgres@127.0.0.1:5432/askdata',
    protocols: ['postgres', 'postgresql'],
  }),
  DATABASE_POOL_SIZE: setting.int('Connections per service.', { default: 10, min: 1, max: 200 }),
  DATABASE_READ_CONNECTIONS: setting.int(
    "Distributed mode: connections of each service's pool that ingestion's bulk writes never take, so that reads always find one (bulk writes keep one at least); waiting reads are served before waiting writes in both modes.",
    { default: 2, min: 0, max: 200 },
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: setting.int(
    "Distributed mode: longest a service's SQL statement may run before PostgreSQL cancels it (the request answers 503); 0: no limit. Migrations are not bounded. The embedded database of standalone mode cannot cancel a statement.",
    { default: 30000, min: 0, max: 3600000 },
  ),
  NATS_URL: setting.url('NATS server URL (distributed mode).', {
    default: 'nats://127.0.0.1:4222',
    protocols: ['nats', 'tls', 'ws', 'wss'],
  }),
  NATS_SUBJECT_PREFIX: setting.pattern(
    'Distributed mode: a namespace for this deployment on a shared NATS server (e.g. "staging"): every subject, queue group and the doorbell stream are its own, so deployments never answer each other. Empty: none.',
    /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/,
    'dot-separated words of letters, digits, "_" and "-"',
    { default: '', maxLength: 64 },
  ),
  BUS_TIMEOUT_MS: setting.int('How long a bus request waits for its reply.', { default: 15000, min: 100, max: 600000 }),
  HOST: setting.requiredString(
    "Address the HTTP servers of the process bind to (the API, or a service's health port). The default keeps them on this machine; containers set 0.0.0.0.",
    { default: '127.0.0.1' },
  ),
  LOG_LEVEL: setting.oneOf('Log level.', ['debug', 'info', 'warn', 'error'] as const, { default: 'info' }),
};

/** Settings of the four bus services (not the gateway, which serves these endpoints on PORT). */
export const serviceSettings = {
  ...commonSettings,
  HEALTH_PORT: setting.int('Distributed mode: HTTP port of /health/live, /health/ready and /metrics.', {
    default: 9464,
    min: 0,
    max: 65535,
  }),
};

/** Read by the gateway (how long it waits for an answer) and by conversation (what its model calls must fit in). */
export const answerSettings = {
  ANSWER_TIMEOUT_MS: setting.int(
    'How long a question (POST /v1/query, /v1/chats, /v1/chats/{chat}/messages) may take, answer included: the deadline its bus request carries. The model timeouts and retries must fit in it.',
    { default: 60000, min: 1000, max: 600000 },
  ),
};
