import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of this process. In standalone mode the five apps share the process and so the registry;
 * every metric carries the service that recorded it. Common declares the HTTP and bus metrics; each app declares
 * its own in `<app>.metrics.ts`.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Latency buckets in seconds, for requests answered in a few milliseconds up to half a minute. */
export const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics of HTTP and the bus. */
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
  dbConnectionWait: new Histogram({
    name: 'askdata_db_connection_wait_seconds',
    help: "Time waited for a database connection, by lane: a client's request (read) or bulk work (background).",
    labelNames: ['lane'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
  dbConnectionHeld: new Histogram({
    name: 'askdata_db_connection_held_seconds',
    help: 'Time a database connection was held (a statement, or a transaction), by lane.',
    labelNames: ['lane'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
};
