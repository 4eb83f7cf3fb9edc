import { Inject, Injectable } from '@nestjs/common';
import { OutboxEvent } from '@askdata/contracts';
import { queryRows, uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { gatewayMetrics } from '../gateway.metrics';

/** Finished deliveries one prune deletes at most. */
export const PRUNE_BATCH = 10000;

/** A delivery in a sender's hands: one attempt, fenced by its attempt number. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  attempts: number;
  body: string;
  created_at: Date;
  url: string;
  secret: string;
}

/** How an attempt ended: a 2xx is delivered; anything else (another status, no answer) failed. */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * Webhook deliveries in the gateway's schema: stored from the services' outboxes, claimed by the senders of every
 * gateway (`FOR UPDATE SKIP LOCKED` and a lease, as the upsert queue does), and each attempt's end recorded,
 * fenced by its attempt number. Only the oldest pending delivery of each endpoint can be claimed, so an endpoint
 * gets its events in the order they were written, a later one never while an earlier one waits for a retry.
 */
@Injectable()
export class DeliveryQueue {
  constructor(
    private readonly ds: DataSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * Stores the events for every enabled endpoint of their project that subscribes to them and existed when they
   * happened, in the order given; an event stored before (its acknowledgement lost) is not stored again. The
   * endpoints are locked against deletion meanwhile (an endpoint deleted first gets nothing), so no delivery is left
   * behind without its endpoint.
   */
  async store(events: OutboxEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const endpoints = await queryRows<{ id: string; project_id: string; events: string[]; created_at: Date }>(
      this.ds,
      'SELECT id, project_id, events, created_at FROM gateway.webhook_endpoints WHERE project_id = ANY($1::uuid[]) AND enabled ORDER BY id',
      [[...new Set(events.map((e) => e.project_id))]],
    );
    const rows: Array<[string, string, string, string, string, string]> = [];
    for (const e of events) {
      const body = JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, project: e.project_id, resource: e.resource, data: e.data });
      for (const ep of endpoints) {
        if (ep.project_id !== e.project_id || !ep.events.includes(e.type) || ep.created_at.getTime() > Date.parse(e.created_at)) continue;
        rows.push([uuidv7(), ep.id, e.id, e.type, body, e.created_at]);
      }
    }
    if (rows.length === 0) return 0;
    const col = (k: number) => rows.map((r) => r[k]);
    const stored = await queryRows<{ id: string }>(
      this.ds,
      `INSERT INTO gateway.webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, attempts, next_at, created_at)
       SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.body, 'pending', 0, now(), d.created_at
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::varchar[], $5::text[], $6::timestamptz[]) AS d(id, endpoint_id, event_id, event_type, body, created_at)
         JOIN gateway.webhook_endpoints e ON e.id = d.endpoint_id
          FOR KEY SHARE OF e
       ON CONFLICT (endpoint_id, event_id) DO NOTHING
       RETURNING id`,
      [col(0), col(1), col(2), col(3), col(4), col(5)],
    );
    return stored.length;
  }

  /** Claims up to `limit` due deliveries, each the oldest pending one of its endpoint, with its endpoint's address and secret. */
  async claim(limit: number): Promise<ClaimedDelivery[]> {
    return queryRows<ClaimedDelivery>(
      this.ds,
      `WITH heads AS (
         SELECT DISTINCT ON (endpoint_id) id FROM gateway.webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id, id
       ),
       next AS (
         SELECT d.id FROM gateway.webhook_deliveries d
           JOIN heads h ON h.id = d.id
           JOIN gateway.webhook_endpoints e ON e.id = d.endpoint_id
          WHERE e.enabled AND d.next_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
          ORDER BY d.next_at
          LIMIT $1
          FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE gateway.webhook_deliveries d
          SET attempts = d.attempts + 1, last_attempt_at = now(),
              lease_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM next, gateway.webhook_endpoints e
        WHERE d.id = next.id AND e.id = d.endpoint_id
       RETURNING d.id, d.event_id, d.event_type, d.endpoint_id, d.attempts, d.body, d.created_at, e.url, e.secret`,
      [limit, 2 * this.config.WEBHOOK_TIMEOUT_MS + 5000],
    );
  }

  /** Records an attempt's end (if it is still this attempt's): delivered, retried after `retryInMs`, or given up. */
  async finish(d: ClaimedDelivery, outcome: AttemptOutcome, retryInMs: number): Promise<void> {
    const giveUp = !outcome.ok && Date.now() + retryInMs > d.created_at.getTime() + this.config.WEBHOOK_RETRY_MS;
    gatewayMetrics.webhookAttempts.inc({ outcome: outcome.ok ? 'delivered' : giveUp ? 'failed' : 'retried' });
    await this.ds.transaction(async (tx) => {
      const [mine] = await queryRows<{ id: string }>(
        tx,
        `UPDATE gateway.webhook_deliveries
            SET status = $3::varchar, lease_until = NULL, last_status_code = $4, last_error = $5,
                delivered_at = CASE WHEN $3::varchar = 'delivered' THEN now() ELSE NULL END,
                next_at = now() + make_interval(secs => $6::double precision / 1000)
          WHERE id = $1 AND attempts = $2 AND status = 'pending'
         RETURNING id`,
        [d.id, d.attempts, outcome.ok ? 'delivered' : giveUp ? 'failed' : 'pending', outcome.statusCode, outcome.error?.slice(0, 1000) ?? null, retryInMs],
      );
      if (!mine) return;
      if (outcome.ok) {
        await tx.query('UPDATE gateway.webhook_endpoints SET consecutive_failures = 0, failing_since = NULL WHERE id = $1', [d.endpoint_id]);
        return;
      }
      const [ep] = await queryRows<{ consecutive_failures: number; failing_for_ms: number; enabled: boolean }>(
        tx,
        `UPDATE gateway.webhook_endpoints
            SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, now())
          WHERE id = $1
         RETURNING consecutive_failures, enabled, (extract(epoch FROM now() - failing_since) * 1000)::float8 AS failing_for_ms`,
        [d.endpoint_id],
      );
      const reason = ep?.enabled ? disableReason(ep, outcome, this.config) : null;
      if (reason) {
        await tx.query('UPDATE gateway.webhook_endpoints SET enabled = false, disabled_reason = $2, disabled_at = now(), updated_at = now() WHERE id = $1', [
          d.endpoint_id,
          reason,
        ]);
      }
    });
  }

  /** Deletes the finished deliveries of each endpoint beyond its newest WEBHOOK_LOG_PER_ENDPOINT (PRUNE_BATCH a call). */
  async prune(): Promise<number> {
    const gone = await queryRows<{ id: string }>(
      this.ds,
      `DELETE FROM gateway.webhook_deliveries d USING (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY id DESC) AS n FROM gateway.webhook_deliveries WHERE status <> 'pending'
         ) r WHERE r.n > $1 LIMIT ${PRUNE_BATCH}
       ) old WHERE d.id = old.id
       RETURNING d.id`,
      [this.config.WEBHOOK_LOG_PER_ENDPOINT],
    );
    return gone.length;
  }
}

/** Why an endpoint whose attempt just failed is disabled now, or null while it may go on failing. */
export function disableReason(
  ep: { consecutive_failures: number; failing_for_ms: number },
  outcome: AttemptOutcome,
  config: Pick<GatewayConfig, 'WEBHOOK_DISABLE_AFTER_FAILURES' | 'WEBHOOK_DISABLE_AFTER_MS'>,
): string | null {
  const last = outcome.statusCode !== null ? `HTTP ${outcome.statusCode}` : (outcome.error ?? 'no answer');
  if (ep.consecutive_failures >= config.WEBHOOK_DISABLE_AFTER_FAILURES) {
    return `Disabled after ${ep.consecutive_failures} failed attempts in a row (the last: ${last}).`;
  }
  if (ep.failing_for_ms >= config.WEBHOOK_DISABLE_AFTER_MS) {
    return `Disabled after failing for ${Math.round(ep.failing_for_ms / 60000)} minutes without a delivery (the last: ${last}).`;
  }
  return null;
}
