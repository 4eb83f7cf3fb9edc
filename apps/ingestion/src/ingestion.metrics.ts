import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '@askdata/common';

let queueDepthSource: (() => Promise<void>) | null = null;

/** The worker registers how to measure the queue; it is read when Prometheus scrapes. */
export function measureQueueDepthWith(source: () => Promise<void>): void {
  queueDepthSource = source;
}

/** Ingestion's metrics. */
export const ingestionMetrics = {
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
};
