// Over 250 lines: one repository, the upsert queue's statements (claims, renewals, the end of each attempt), all
// fenced the same way.
import { Inject, Injectable } from '@nestjs/common';
import { queryRows } from '@askdata/common';
import type { UpsertKind } from '@askdata/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { INGESTION_CONFIG } from '../ingestion.tokens';
import { IngestionConfig } from '../ingestion.config';
import { AcceptedBatches } from './accepted-batches';
import { BatchVacuum } from './batch-vacuum';
import { behindInFlight, disjointRun, followers, Waiting } from './group-rules';
import { UpsertBatchPayload } from './upsert.entity';
import { announceFinished } from './upsert-events';

/** An upsert in a worker's hands: one attempt of it, fenced by its attempt number. */
export interface Claim {
  id: string;
  project_id: string;
  attempts: number;
  items_count: number;
  outage_attempts: number;
  outage_since: Date | null;
  kind: UpsertKind;
  /** The upsert's batch, kept by this process or as stored (`withBatches`); missing only if its row is gone. */
  batch?: UpsertBatchPayload;
}

/** How a failed attempt is recorded (see `retryDecision`). */
export interface FailedAttempt {
  /** Why it failed, as the upsert's error says. */
  reason: string;
  /** No attempt is left: the upsert is `failed`. */
  final: boolean;
  /** Until the next attempt, when one is left. */
  delayMs: number;
  /** The attempt found a service unavailable and does not count against the attempts. */
  outage: boolean;
  /** The failure was an unavailable service (dates the outage, counted or not). */
  outageSeen: boolean;
  /** Catalog stored the upsert's items in this attempt. */
  stored: boolean;
}

/** Ends the error of a `failed` upsert whose items catalog stored before an attempt of it failed. */
export const STORED_BEFORE_FAILING = ' Its items were stored before it failed: they are listed, but may be missing from search results until they are upserted again.';

/** The columns of a claimed upsert, as a claim returns them. */
const CLAIMED = 'u.id, u.project_id, u.attempts, u.items_count, u.outage_attempts, u.outage_since, u.kind';

/**
 * (Over 250 lines: every statement of the queue is here, side by side, since they share its rules: the project's
 * head first, leases, and writes fenced by the attempt number.)
 *
 * The upsert queue in the database: claims (lease + attempt count, `FOR UPDATE SKIP LOCKED`, so several workers
 * share it), lease renewals, and the end of each attempt. Every write to a claimed upsert is fenced by its attempt
 * number, so an attempt whose lease another worker took over writes nothing.
 */
@Injectable()
export class UpsertQueue {
  constructor(
    private readonly ds: DataSource,
    @Inject(INGESTION_CONFIG) private readonly config: IngestionConfig,
    private readonly accepted: AcceptedBatches,
    private readonly vacuum: BatchVacuum,
  ) {}

  /** Upserts queued and in processing, for the metrics. */
  async depth(): Promise<{ queued: number; processing: number }> {
    const rows = await queryRows<{ status: 'queued' | 'processing'; n: number }>(
      this.ds,
      `SELECT status, count(*)::int AS n FROM ingestion.upserts WHERE status IN ('queued', 'processing') GROUP BY status`,
    );
    const n = (status: string) => rows.find((r) => r.status === status)?.n ?? 0;
    return { queued: n('queued'), processing: n('processing') };
  }

  /**
   * Upserts whose lease expired after their last allowed attempt are failed with a reason (and whether items were
   * stored), told first to `settling` by project (the worker announces them to the gateways' list caches).
   */
  async sweep(settling: (projectId: string, ids: string[]) => Promise<void> = () => Promise.resolve()): Promise<void> {
    // Every worker loop sweeps: one cheap statement when, as nearly always, there is nothing to sweep.
    const due = await queryRows<{ id: string; project_id: string }>(
      this.ds,
      `SELECT id, project_id FROM ingestion.upserts
        WHERE status = 'processing' AND lease_until < now() AND attempts - outage_attempts >= $1 LIMIT 100`,
      [this.config.UPSERT_MAX_ATTEMPTS],
    );
    if (!due.length) return;
    const byProject = new Map<string, string[]>();
    for (const { id, project_id } of due) {
      const ids = byProject.get(project_id);
      if (ids) ids.push(id);
      else byProject.set(project_id, [id]);
    }
    for (const [projectId, ids] of byProject) await settling(projectId, ids);
    await this.ds.transaction(async (tx) => {
      const failed = await queryRows<{ id: string }>(
        tx,
        `UPDATE ingestion.upserts
           SET status = 'failed', completed_at = now(), lease_until = NULL,
               error = COALESCE(error, 'The upsert was abandoned by its worker too many times.')
                       || CASE WHEN items_stored THEN $2 ELSE '' END
         WHERE id = ANY($3::uuid[]) AND status = 'processing' AND lease_until < now() AND attempts - outage_attempts >= $1
         RETURNING id`,
        [this.config.UPSERT_MAX_ATTEMPTS, STORED_BEFORE_FAILING, due.map((d) => d.id)],
      );
      await announceFinished(tx, failed);
    });
  }

  /**
   * Claims the next upsert: the oldest unfinished upsert of some project, when it is due (queued, or its lease or
   * retry backoff ran out). A project's upserts are thus applied one at a time in the order they were accepted, so a
   * later upsert of an item always wins over an earlier one, whatever the number of workers and retries. A lease in
   * `held` (this process's, not renewed in time because the database answered late) is not taken over.
   *
   * When more of that project's upserts wait right behind it, they are claimed with it, in order, up to
   * INGEST_GROUP_ITEMS items, and processed as one: under load the index then gets fewer, larger batches. Only
   * upserts on their first attempt are grouped, and only when a retry is allowed: when a group fails, each of its
   * upserts is retried alone, so one that cannot be processed fails on its own and takes no other down with it.
   */
  async claim(held: ReadonlySet<string>): Promise<Claim[]> {
    return this.ds.transaction(async (tx) => {
      const [head] = await queryRows<Claim>(
        tx,
        `WITH heads AS (
           SELECT DISTINCT ON (project_id) id FROM ingestion.upserts
           WHERE status IN ('queued', 'processing')
           ORDER BY project_id, id
         ),
         next AS (
           SELECT u.id FROM ingestion.upserts u JOIN heads h ON h.id = u.id
           WHERE (u.status = 'queued' AND u.available_at <= now())
              OR (u.status = 'processing' AND u.lease_until < now() AND u.attempts - u.outage_attempts < $2
                  AND u.id <> ALL($3::uuid[]))
           ORDER BY u.id
           LIMIT 1
           FOR UPDATE OF u SKIP LOCKED
         )
         UPDATE ingestion.upserts u
            SET status = 'processing', attempts = u.attempts + 1,
                lease_until = now() + make_interval(secs => $1::double precision / 1000),
                started_at = COALESCE(u.started_at, now())
           FROM next
          WHERE u.id = next.id
         RETURNING ${CLAIMED}`,
        [this.config.UPSERT_LEASE_MS, this.config.UPSERT_MAX_ATTEMPTS, [...held]],
      );
      if (!head) return [];
      const claims = [head];
      const room = this.config.INGEST_GROUP_ITEMS - head.items_count;
      if (head.kind === 'upsert' && head.attempts === 1 && this.config.UPSERT_MAX_ATTEMPTS > 1 && room > 0) {
        // Nobody holds the upserts behind a head but the head's holder, and that is this worker now.
        const ids = followers(await this.unfinished(tx, head.project_id, head.id), room);
        if (ids.length) claims.push(...(await this.start(tx, ids)));
      }
      return this.withBatches(tx, claims);
    });
  }

  /**
   * The project's next group after the upserts in flight (`current`, the groups in hand; `inFlight`, every upsert
   * this process holds): claimed only if every earlier unfinished upsert of the project is in flight, it is a first
   * attempt, and it touches none of the items of `current`, whose own order is then immaterial to the result.
   * Otherwise nothing, and the group waits to be claimed as the project's oldest unfinished upsert, as usual.
   */
  async claimBehind(current: Claim[], inFlight: ReadonlySet<string>): Promise<Claim[]> {
    if (this.config.UPSERT_MAX_ATTEMPTS === 1 || current.length === 0) return [];
    const projectId = current[0].project_id;
    return this.ds.transaction(async (tx) => {
      const behind = behindInFlight(await this.unfinished(tx, projectId), inFlight);
      if (behind.length === 0 || !behind[0].first) return [];
      const ids = followers(behind, Math.max(this.config.INGEST_GROUP_ITEMS, behind[0].items_count));
      const batches = await this.batchesOf(tx, ids);
      const held = new Set(current.flatMap((c) => c.batch?.items.map((i) => i.id) ?? []));
      const run = disjointRun(ids, (id) => batches.get(id)?.items.map((i) => i.id), held);
      if (run.length === 0) return [];
      return this.withBatches(tx, await this.start(tx, run), batches);
    });
  }

  /**
   * The heartbeat: extends the lease of the claims still this attempt's (fenced by the attempt number), and returns
   * those another worker took meanwhile (their attempt number moved on): this attempt's writes to them are refused.
   */
  async renew(claims: Claim[]): Promise<string[]> {
    const lost = await queryRows<{ id: string }>(
      this.ds,
      `WITH c AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS c(id, attempts)),
       renewed AS (
         UPDATE ingestion.upserts u SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
           FROM c WHERE u.id = c.id AND u.status = 'processing' AND u.attempts = c.attempts
       )
       SELECT u.id FROM ingestion.upserts u JOIN c ON c.id = u.id WHERE u.attempts > c.attempts`,
      [claims.map((c) => c.id), claims.map((c) => c.attempts), this.config.UPSERT_LEASE_MS],
    );
    return lost.map((r) => r.id);
  }

  /**
   * A delete removed these items from catalog: its `items_count` counts them. Not fenced by the attempt: the items
   * are gone whichever attempt removed them, and no later attempt selects them again.
   */
  async countRemoved(id: string, items: number): Promise<void> {
    await this.ds.query(`UPDATE ingestion.upserts SET items_count = items_count + $2 WHERE id = $1 AND kind = 'delete'`, [id, items]);
  }

  /**
   * The claims' attempts succeeded: their upserts are `completed` (those still this attempt's), with their webhook
   * events, and their stored batches, which nothing reads again, deleted in the same transaction.
   */
  async complete(claims: Claim[]): Promise<void> {
    const dropped = await this.ds.transaction(async (tx) => {
      const completed = await queryRows<{ id: string }>(
        tx,
        `UPDATE ingestion.upserts u SET status = 'completed', completed_at = now(), lease_until = NULL, error = NULL
           FROM unnest($1::uuid[], $2::int[]) AS c(id, attempts)
          WHERE u.id = c.id AND u.status = 'processing' AND u.attempts = c.attempts
         RETURNING u.id`,
        [claims.map((c) => c.id), claims.map((c) => c.attempts)],
      );
      await announceFinished(tx, completed);
      if (!completed.length) return 0;
      const [row] = await queryRows<{ n: number }>(
        tx,
        `WITH dropped AS (DELETE FROM ingestion.upsert_batches WHERE upsert_id = ANY($1::uuid[]) RETURNING 1) SELECT count(*)::int AS n FROM dropped`,
        [completed.map((c) => c.id)],
      );
      return row?.n ?? 0;
    });
    this.vacuum.note(dropped);
  }

  /**
   * Records a failed attempt. Retried, the upsert stays `processing` (status only moves forward), its lease set to
   * the end of the backoff, when it can be claimed again; `error` says why the last attempt failed. A `failed`
   * upsert whose items catalog stored in one of its attempts says so in its error.
   */
  async fail(claim: Claim, attempt: FailedAttempt): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const updated = await queryRows<{ id: string }>(
        tx,
        `UPDATE ingestion.upserts
          SET status = $3::varchar,
              items_stored = items_stored OR $6,
              error = CASE WHEN $3::varchar = 'failed' AND (items_stored OR $6) THEN $4 || $7 ELSE $4 END,
              lease_until = CASE WHEN $3::varchar = 'failed' THEN NULL
                                 ELSE now() + make_interval(secs => $5::double precision / 1000) END,
              completed_at = CASE WHEN $3::varchar = 'failed' THEN now() ELSE NULL END,
              outage_attempts = outage_attempts + $8::int,
              outage_since = CASE WHEN $9 THEN COALESCE(outage_since, now()) ELSE outage_since END
        WHERE id = $1 AND status = 'processing' AND attempts = $2
        RETURNING id`,
        [
          claim.id,
          claim.attempts,
          attempt.final ? 'failed' : 'processing',
          attempt.reason,
          attempt.delayMs,
          attempt.stored,
          STORED_BEFORE_FAILING,
          attempt.outage ? 1 : 0,
          attempt.outageSeen,
        ],
      );
      if (attempt.final) await announceFinished(tx, updated);
    });
  }

  /** The project's unfinished upserts in acceptance order (after `after`, if given), locked, the first 64. */
  private unfinished(tx: EntityManager, projectId: string, after?: string): Promise<Waiting[]> {
    return queryRows<Waiting>(
      tx,
      `SELECT id, items_count, (status = 'queued' AND attempts = 0 AND available_at <= now() AND kind = 'upsert') AS first
         FROM ingestion.upserts
        WHERE project_id = $1 AND status IN ('queued', 'processing') AND ($2::uuid IS NULL OR id > $2::uuid)
        ORDER BY id
        LIMIT 64
        FOR UPDATE`,
      [projectId, after ?? null],
    );
  }

  /** Marks the upserts (locked by the caller's transaction) as in this worker's hands, in acceptance order. */
  private async start(tx: EntityManager, ids: string[]): Promise<Claim[]> {
    const started = await queryRows<Claim>(
      tx,
      `UPDATE ingestion.upserts u
          SET status = 'processing', attempts = u.attempts + 1,
              lease_until = now() + make_interval(secs => $2::double precision / 1000), started_at = now()
        WHERE u.id = ANY($1::uuid[])
       RETURNING ${CLAIMED}`,
      [ids, this.config.UPSERT_LEASE_MS],
    );
    return started.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /**
   * The batches of these upserts: those this process accepted and keeps (`AcceptedBatches`), and the others as
   * stored, read in one statement.
   */
  private async batchesOf(tx: EntityManager, ids: string[]): Promise<Map<string, UpsertBatchPayload>> {
    const batches = new Map<string, UpsertBatchPayload>();
    for (const id of ids) {
      const kept = this.accepted.get(id);
      if (kept) batches.set(id, kept);
    }
    const unread = ids.filter((id) => !batches.has(id));
    if (unread.length) {
      const rows = await queryRows<{ upsert_id: string; payload: string }>(tx, 'SELECT upsert_id, payload FROM ingestion.upsert_batches WHERE upsert_id = ANY($1::uuid[])', [
        unread,
      ]);
      for (const r of rows) batches.set(r.upsert_id, JSON.parse(r.payload) as UpsertBatchPayload);
    }
    return batches;
  }

  /** The claims with their batches (`batches`, when the caller has them already); this process keeps them no longer. */
  private async withBatches(tx: EntityManager, claims: Claim[], batches?: Map<string, UpsertBatchPayload>): Promise<Claim[]> {
    const found =
      batches ??
      (await this.batchesOf(
        tx,
        claims.map((c) => c.id),
      ));
    for (const c of claims) {
      c.batch = found.get(c.id);
      this.accepted.drop(c.id);
    }
    return claims;
  }
}
