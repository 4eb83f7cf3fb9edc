import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BusError, ErrorCode } from '@askdata/contracts';
import { queryRows, ServiceError, uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';

/** What a request with an `Idempotency-Key` is to do: the work (under `operationId`), or answer as the first did. */
export type Begun = { kind: 'owner'; operationId: string } | { kind: 'answered'; status: number; outcome: StoredOutcome };

/** The first answer as kept: the body of a success, or the error of a refusal (4xx). */
export type StoredOutcome = { data: unknown } | { error: BusError };

interface Row {
  fingerprint: string;
  operation_id: string;
  status: number | null;
  response: string | null;
  held_ms: number | null;
  expired: boolean;
}

/** How often a retry looks whether the first request has been answered. */
const POLL_MS = 100;
/** Expired keys removed per statement, and how often the removal runs. */
const SWEEP_ROWS = 10000;
const SWEEP_MS = 60000;

/**
 * The remembered requests of `Idempotency-Key` (`gateway.idempotency_keys`, shared by every gateway). A key is taken
 * by inserting its row; a retry finds the row and waits for the answer, or takes the work over once the request that
 * held it has let it go (answered 5xx) or would have timed out (its gateway died). Keys expire after
 * IDEMPOTENCY_KEY_TTL_MS and are removed in the background.
 */
@Injectable()
export class IdempotencyStore implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyStore.name);
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /**
   * Takes the key for this request (`holdMs`: how long the request may run), or finds the first answer, waiting
   * for it up to IDEMPOTENCY_WAIT_MS. The same key with another request is 422; still running after the wait, 409
   * with the seconds until it may be retried (`retryAfter`).
   */
  async begin(projectId: string, key: string, fingerprint: string, holdMs: number, retryAfter: (seconds: number) => void): Promise<Begun> {
    const waitUntil = Date.now() + this.config.IDEMPOTENCY_WAIT_MS;
    for (;;) {
      const [taken] = await queryRows<{ operation_id: string }>(
        this.ds,
        `INSERT INTO gateway.idempotency_keys (project_id, key, fingerprint, operation_id, held_until, created_at, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000), now(),
                 now() + make_interval(secs => $6::double precision / 1000))
         ON CONFLICT (project_id, key) DO NOTHING
         RETURNING operation_id`,
        [projectId, key, fingerprint, uuidv7(), holdMs, this.config.IDEMPOTENCY_KEY_TTL_MS],
      );
      if (taken) return { kind: 'owner', operationId: taken.operation_id };
      const [row] = await queryRows<Row>(
        this.ds,
        `SELECT fingerprint, operation_id, status, response, expires_at < now() AS expired,
                (extract(epoch FROM held_until - now()) * 1000)::int AS held_ms
           FROM gateway.idempotency_keys WHERE project_id = $1 AND key = $2`,
        [projectId, key],
      );
      if (!row) continue; // removed meanwhile: take it
      if (row.expired) {
        await this.ds.query('DELETE FROM gateway.idempotency_keys WHERE project_id = $1 AND key = $2 AND expires_at < now()', [projectId, key]);
        continue;
      }
      if (row.fingerprint !== fingerprint) {
        throw ServiceError.invalidField('Idempotency-Key', 'This Idempotency-Key was used with a different request (method, path or body); use a new key for a new request.');
      }
      if (row.status !== null) return { kind: 'answered', status: row.status, outcome: JSON.parse(row.response ?? '{}') as StoredOutcome };
      if ((row.held_ms ?? 0) <= 0) {
        const [over] = await queryRows<{ operation_id: string }>(
          this.ds,
          `UPDATE gateway.idempotency_keys SET held_until = now() + make_interval(secs => $3::double precision / 1000)
            WHERE project_id = $1 AND key = $2 AND status IS NULL AND held_until <= now()
           RETURNING operation_id`,
          [projectId, key, holdMs],
        );
        if (over) return { kind: 'owner', operationId: over.operation_id };
        continue;
      }
      if (Date.now() + POLL_MS > waitUntil) {
        retryAfter(Math.max(1, Math.min(Math.ceil((row.held_ms ?? 0) / 1000), 60)));
        throw new ServiceError(ErrorCode.Conflict, 'A request with this Idempotency-Key is still in progress. Retry after the time given in Retry-After.');
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Keeps the answer of the request that holds the key; every retry gets it from now on. */
  async answered(projectId: string, key: string, status: number, outcome: StoredOutcome): Promise<void> {
    await this.ds.query(
      `UPDATE gateway.idempotency_keys SET status = $3, response = $4, held_until = NULL
        WHERE project_id = $1 AND key = $2 AND status IS NULL`,
      [projectId, key, status, JSON.stringify(outcome)],
    );
  }

  /** The request failed in a way a retry may not (a 5xx): the next retry does the work again, under the same id. */
  async release(projectId: string, key: string): Promise<void> {
    await this.ds.query('UPDATE gateway.idempotency_keys SET held_until = now() WHERE project_id = $1 AND key = $2 AND status IS NULL', [projectId, key]);
  }

  /** Removes expired keys, a bounded number per statement. */
  async sweep(): Promise<number> {
    let removed = 0;
    try {
      for (;;) {
        const rows = await queryRows<{ key: string }>(
          this.ds,
          `DELETE FROM gateway.idempotency_keys WHERE (project_id, key) IN (
             SELECT project_id, key FROM gateway.idempotency_keys WHERE expires_at < now() LIMIT ${SWEEP_ROWS}
           ) RETURNING key`,
        );
        removed += rows.length;
        if (rows.length < SWEEP_ROWS) return removed;
      }
    } catch (e) {
      this.logger.warn(`cannot remove expired idempotency keys: ${(e as Error).message}`);
      return removed;
    }
  }
}
