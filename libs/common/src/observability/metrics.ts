import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of this process. In standalone mode the five apps share the process and so the registry;
 * every metric carries the service that recorded it.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

let queueDepthSource: (() => Promise<void>) | null = null;

/** Ingestion registers how to measure its queue; it is read when Prometheus scrapes. */
export function measureQueueDepthWith(source: () => Promise<void>): void {
  queueDepthSource = source;
}

export const metrics = {
  httpRequests: new Counter({
    name: 'askdata_http_requests_total',
    help: 'HTTP requests by route, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'askdata_http_request_duration_seconds',
    help: 'HTTP request latency.',
    labelNames: ['method', 'route'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
  httpErrors: new Counter({
    name: 'askdata_http_errors_total',
    help: 'HTTP error responses by error code.',
    labelNames: ['status', 'code'] as const,
    registers: [registry],
  }),
  busDuration: new Histogram({
    name: 'askdata_bus_request_duration_seconds',
    help: 'Bus request latency as seen by the caller, by subject and outcome.',
    labelNames: ['service', 'subject', 'outcome'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
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
    help: 'Gateway list answers by outcome: hit (a kept answer), miss (computed and kept), uncacheable (computed, not kept).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  upsertOutcomes: new Counter({
    name: 'askdata_upserts_total',
    help: 'Upsert processing attempts by outcome (completed, retried, failed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  upsertItems: new Counter({
    name: 'askdata_upsert_items_total',
    help: 'Items processed by ingestion.',
    registers: [registry],
  }),
  upsertGroups: new Histogram({
    name: 'askdata_upsert_group_size',
    help: "Upserts processed together as one (a project's consecutive queued upserts, up to INGEST_GROUP_ITEMS items).",
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  }),
  queueDepth: new Gauge({
    name: 'askdata_ingestion_queue_depth',
    help: 'Upserts waiting or in progress, by status.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      await queueDepthSource?.();
    },
  }),
  retrievalDuration: new Histogram({
    name: 'askdata_retrieval_duration_seconds',
    help: 'Search latency inside the retrieval service, by backend.',
    labelNames: ['backend'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
  indexVacuums: new Histogram({
    name: 'askdata_index_vacuum_duration_seconds',
    help: 'Background maintenance of the PostgreSQL index tables, by kind (vacuum: vacuum and analyse; analyze: analyse only) and outcome (done, failed).',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [registry],
  }),
  modelDuration: new Histogram({
    name: 'askdata_model_request_duration_seconds',
    help: 'Answer-model request latency, by model and outcome.',
    labelNames: ['model', 'outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  }),
  modelTokens: new Counter({
    name: 'askdata_model_tokens_total',
    help: 'Answer-model token usage, by model and kind (input, output, cache_read, cache_write).',
    labelNames: ['model', 'kind'] as const,
    registers: [registry],
  }),
};
