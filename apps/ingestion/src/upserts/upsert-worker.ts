import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { inBackground, measureQueueDepthWith, metrics, queryRows } from '@askdata/common';
import { DataSource, EntityManager } from 'typeorm';
import { DOORBELL, Doorbell } from '../infra/doorbell';
import { INGESTION_CONFIG } from '../ingestion.tokens';
import { IngestionConfig } from '../ingestion.config';
import { AcceptedBatches } from './accepted-batches';
import { UpsertBatchPayload } from './upsert.entity';
import { UpsertProcessor } from './upsert-processor';
import { isOutage, retryDecision } from './retry-decision';

interface Claim {
  id: string;
  project_id: string;
  attempts: number;
  items_count: number;
  outage_attempts: number;
  outage_since: Date | null;
  /** The upsert's batch, kept by this process or as stored (`withBatches`); missing only if its row is gone. */
  batch?: UpsertBatchPayload;
}

/**
 * A project's groups in one worker's hands at once: one written to the index while the next is prepared for it and
 * those behind are chunked and stored in catalog, so that the database always has the next statements waiting
 * (standalone's single connection runs them one at a time, in the order they come).
 */
const GROUPS_IN_HAND = 4;

/** Ends the error of a `failed` upsert whose items catalog stored before an attempt of it failed. */
const STORED_BEFORE_FAILING =
  ' Its items were stored before it failed: they are listed, but may be missing from search results until they are upserted again.';

/** The columns of a claimed upsert, as a claim returns them. */
const CLAIMED = 'u.id, u.project_id, u.attempts, u.items_count, u.outage_attempts, u.outage_since';

/** An unfinished upsert of a project, as a claim looks behind the head or the upserts in flight. */
interface Waiting {
  id: string;
  items_count: number;
  /** Queued and due, never attempted. */
  first: boolean;
}

/**
 * Moves upserts queued -> processing -> completed | failed. Work is claimed in the database (lease + attempt
 * count, `FOR UPDATE SKIP LOCKED`), so several workers share it, a lost doorbell only delays it, and a worker
 * that dies mid-batch has its lease expire and the batch retried. Each attempt is fenced by its attempt number.
 */
@Injectable()
export class UpsertWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(UpsertWorker.name);
  private running = false;
  private wake: (() => void) | null = null;
  private kicked = false;
  private loops: Array<Promise<void>> = [];
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly ds: DataSource,
    private readonly processor: UpsertProcessor,
    @Inject(INGESTION_CONFIG) private readonly config: IngestionConfig,
    @Inject(DOORBELL) private readonly doorbell: Doorbell,
    private readonly accepted: AcceptedBatches,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.running = true;
    measureQueueDepthWith(() => this.measureQueue());
    await this.doorbell.listen(() => this.kick());
    // Bulk work: its database connections yield to reads.
    this.loops = Array.from({ length: this.config.INGEST_CONCURRENCY }, (_, i) => inBackground(() => this.loop(i)));
  }

  /**
   * On shutdown: claim nothing more and finish the batches in hand, before the bus client and the database
   * connection close (they close in the shutdown hooks that follow). A batch cut short anyway is retried.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.kick();
    await this.doorbell.close();
    await Promise.all(this.loops);
  }

  /** Queue depth for the metrics, read when Prometheus scrapes. */
  private async measureQueue(): Promise<void> {
    const rows = await queryRows<{ status: string; n: number }>(
      this.ds,
      `SELECT status, count(*)::int AS n FROM ingestion.upserts WHERE status IN ('queued', 'processing') GROUP BY status`,
    ).catch(() => []);
    for (const status of ['queued', 'processing']) metrics.queueDepth.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
  }

  /** A new upsert was stored: ring the bell for whichever replica is free (this one included). */
  announce(upsertId: string): void {
    void this.doorbell.ring(upsertId);
  }

  /** The doorbell: new work may be waiting. */
  kick(): void {
    this.kicked = true;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async loop(n: number): Promise<void> {
    while (this.running) {
      let claims: Claim[] = [];
      try {
        await this.sweep();
        claims = await this.claim();
      } catch (e) {
        this.logger.warn(`worker ${n}: cannot claim work: ${(e as Error).message}`);
      }
      if (claims.length) {
        await this.runChain(claims);
        continue;
      }
      await this.idle();
    }
  }

  private idle(): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.wake === done) this.wake = null;
        resolve();
      }, this.config.INGEST_POLL_MS);
      const done = () => {
        clearTimeout(timer);
        this.kicked = false;
        resolve();
      };
      const previous = this.wake;
      this.wake = () => {
        previous?.();
        done();
      };
    });
  }

  /** Upserts whose lease expired after their last allowed attempt are failed with a reason (and whether items were stored). */
  private async sweep(): Promise<void> {
    await this.ds.query(
      `UPDATE ingestion.upserts
         SET status = 'failed', completed_at = now(), lease_until = NULL,
             error = COALESCE(error, 'The upsert was abandoned by its worker too many times.')
                     || CASE WHEN items_stored THEN $2 ELSE '' END
       WHERE status = 'processing' AND lease_until < now() AND attempts - outage_attempts >= $1`,
      [this.config.UPSERT_MAX_ATTEMPTS, STORED_BEFORE_FAILING],
    );
  }

  /**
   * Claims the next upsert: the oldest unfinished upsert of some project, when it is due (queued, or its lease or
   * retry backoff ran out). A project's upserts are thus applied one at a time in the order they were accepted, so a
   * later upsert of an item always wins over an earlier one, whatever the number of workers and retries.
   *
   * When more of that project's upserts wait right behind it, they are claimed with it, in order, up to
   * INGEST_GROUP_ITEMS items, and processed as one: under load the index then gets fewer, larger batches. Only
   * upserts on their first attempt are grouped, and only when a retry is allowed: when a group fails, each of its
   * upserts is retried alone, so one that cannot be processed fails on its own and takes no other down with it.
   */
  private async claim(): Promise<Claim[]> {
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
        // A lease this process holds and could not renew in time (a database that answers late) is still its own.
        [this.config.UPSERT_LEASE_MS, this.config.UPSERT_MAX_ATTEMPTS, [...this.inFlight]],
      );
      if (!head) return [];
      const claims = [head];
      const room = this.config.INGEST_GROUP_ITEMS - head.items_count;
      if (head.attempts === 1 && this.config.UPSERT_MAX_ATTEMPTS > 1 && room > 0) {
        // Nobody holds the upserts behind a head but the head's holder, and that is this worker now.
        const behind = await this.unfinished(tx, head.project_id, head.id);
        const ids = this.followers(behind, room);
        if (ids.length) claims.push(...(await this.start(tx, ids)));
      }
      return this.withBatches(tx, claims);
    });
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
      const rows = await queryRows<{ upsert_id: string; payload: string }>(
        tx,
        'SELECT upsert_id, payload FROM ingestion.upsert_batches WHERE upsert_id = ANY($1::uuid[])',
        [unread],
      );
      for (const r of rows) batches.set(r.upsert_id, JSON.parse(r.payload) as UpsertBatchPayload);
    }
    return batches;
  }

  /** The claims with their batches (`batches`, when the caller has them already); this process keeps them no longer. */
  private async withBatches(tx: EntityManager, claims: Claim[], batches?: Map<string, UpsertBatchPayload>): Promise<Claim[]> {
    const found = batches ?? (await this.batchesOf(tx, claims.map((c) => c.id)));
    for (const c of claims) {
      c.batch = found.get(c.id);
      this.accepted.drop(c.id);
    }
    return claims;
  }

  /** The project's unfinished upserts in acceptance order (after `after`, if given), locked, the first 64. */
  private unfinished(tx: EntityManager, projectId: string, after?: string): Promise<Waiting[]> {
    return queryRows<Waiting>(
      tx,
      `SELECT id, items_count, (status = 'queued' AND attempts = 0 AND available_at <= now()) AS first
         FROM ingestion.upserts
        WHERE project_id = $1 AND status IN ('queued', 'processing') AND ($2::uuid IS NULL OR id > $2::uuid)
        ORDER BY id
        LIMIT 64
        FOR UPDATE`,
      [projectId, after ?? null],
    );
  }

  /** The leading upserts of `waiting` that make a group of at most `room` items: first attempts, in order, while they fit. */
  private followers(waiting: Waiting[], room: number): string[] {
    const ids: string[] = [];
    let items = 0;
    for (const u of waiting) {
      if (!u.first || items + u.items_count > room) break;
      items += u.items_count;
      ids.push(u.id);
    }
    return ids;
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
   * Runs a claimed group and, once its items are stored in catalog and it is being indexed, the group behind it, and
   * so on: a project's consecutive groups overlap (one is chunked and stored in catalog while the ones ahead are
   * prepared and written to the index), so the database and the services' own work go on at once. Only a group that
   * touches none of the items of the groups in hand starts early (`claimBehind`), so a later upsert of an item still
   * always wins; GROUPS_IN_HAND at most are in hand at a time.
   */
  private async runChain(first: Claim[]): Promise<void> {
    const inHand: Array<{ claims: Claim[]; done: Promise<void> }> = [];
    let claims = first;
    for (;;) {
      let indexing!: () => void;
      const indexed = new Promise<void>((resolve) => (indexing = resolve));
      const group = { claims, done: this.run(claims, indexing) };
      inHand.push(group);
      // `run` settles every attempt itself, and never rejects.
      void group.done.then(() => inHand.splice(inHand.indexOf(group), 1));
      await Promise.race([indexed, group.done]);
      while (inHand.length >= GROUPS_IN_HAND) await inHand[0].done;
      const held = inHand.flatMap((g) => g.claims);
      const next = this.running && held.length
        ? await this.claimBehind(held).catch((e: Error) => {
            this.logger.warn(`cannot claim the upserts behind ${held[held.length - 1].id}: ${e.message}`);
            return [];
          })
        : [];
      if (next.length === 0) break;
      claims = next;
    }
    await Promise.all(inHand.map((g) => g.done));
  }

  /**
   * The project's next group after the upserts in flight (`current`, the groups in hand): claimed only if every earlier
   * unfinished upsert of the project is in this worker's hands, it is a first attempt, and it touches none of the
   * items of `current`, whose own order is then immaterial to the result. Otherwise nothing, and the group waits to
   * be claimed as the project's oldest unfinished upsert, as usual.
   */
  private async claimBehind(current: Claim[]): Promise<Claim[]> {
    if (this.config.UPSERT_MAX_ATTEMPTS === 1) return [];
    const projectId = current[0].project_id;
    return this.ds.transaction(async (tx) => {
      const unfinished = await this.unfinished(tx, projectId);
      let k = 0;
      while (k < unfinished.length && this.inFlight.has(unfinished[k].id)) k++;
      const behind = unfinished.slice(k);
      if (behind.length === 0 || !behind[0].first) return [];
      const ids = this.followers(behind, Math.max(this.config.INGEST_GROUP_ITEMS, behind[0].items_count));
      const batches = await this.batchesOf(tx, ids);
      const held = new Set(current.flatMap((c) => c.batch?.items.map((i) => i.id) ?? []));
      // The longest run of them, in order, that leaves the items in flight alone.
      const disjoint: string[] = [];
      for (const id of ids) {
        const batch = batches.get(id);
        if (!batch || batch.items.some((i) => held.has(i.id))) break;
        disjoint.push(id);
      }
      if (disjoint.length === 0) return [];
      return this.withBatches(tx, await this.start(tx, disjoint), batches);
    });
  }

  /** One attempt at a group; `indexing` is called once its items are stored in catalog and are being indexed. */
  private async run(claims: Claim[], indexing?: () => void): Promise<void> {
    for (const c of claims) this.inFlight.add(c.id);
    // Renewed every third of the lease, so that a renewal may be late by two thirds of it and the lease still holds;
    // a dead process renews nothing, and its upserts are claimed again at most a lease after its last renewal.
    const heartbeat = setInterval(() => void this.renew(claims), this.config.UPSERT_LEASE_MS / 3);
    const stored = new Set<string>();
    try {
      const batches = claims.map((c) => {
        if (!c.batch) throw new Error(`The stored batch of upsert ${c.id} is missing.`);
        return { upsertId: c.id, batch: c.batch };
      });
      await this.processor.process(claims[0].project_id, batches, { indexing, stored: (id) => stored.add(id) });
      metrics.upsertOutcomes.inc({ outcome: 'completed' }, claims.length);
      metrics.upsertItems.inc(batches.reduce((n, b) => n + b.batch.items.length, 0));
      metrics.upsertGroups.observe(claims.length);
      await this.ds.query(
        `UPDATE ingestion.upserts u SET status = 'completed', completed_at = now(), lease_until = NULL, error = NULL
           FROM unnest($1::uuid[], $2::int[]) AS c(id, attempts)
          WHERE u.id = c.id AND u.status = 'processing' AND u.attempts = c.attempts`,
        [claims.map((c) => c.id), claims.map((c) => c.attempts)],
      );
    } catch (e) {
      for (const claim of claims) {
        await this.fail(claim, e, stored.has(claim.id)).catch((err: Error) =>
          this.logger.warn(`upsert ${claim.id}: cannot record failure (${err.message}); its lease will expire`),
        );
      }
    } finally {
      clearInterval(heartbeat);
      for (const c of claims) this.inFlight.delete(c.id);
    }
  }

  /**
   * The heartbeat: extends the lease of the claims still this attempt's (fenced by the attempt number). One that
   * another worker took meanwhile (its attempt number moved on) is not extended, and this attempt's writes to it are
   * refused; that is logged.
   */
  private async renew(claims: Claim[]): Promise<void> {
    try {
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
      if (lost.length) this.logger.warn(`lease lost (renewed too late) on upserts ${lost.map((r) => r.id).join(', ')}`);
    } catch (e) {
      this.logger.warn(`cannot renew the leases of upserts ${claims.map((c) => c.id).join(', ')}: ${(e as Error).message}`);
    }
  }

  /**
   * A failed attempt is retried after a backoff (`retryDecision`): an unavailable service for as long as
   * UPSERT_OUTAGE_RETRY_MS allows, other failures until the attempts run out. The upsert stays `processing` (status
   * only moves forward), its lease set to the end of the backoff, when it can be claimed again; `error` says why the
   * last attempt failed. A `failed` upsert whose items catalog stored in one of its attempts says so in its error.
   */
  private async fail(claim: Claim, e: unknown, stored: boolean): Promise<void> {
    const reason = (e instanceof Error ? e.message : String(e)).slice(0, 2000);
    const decision = retryDecision(e, {
      attempts: claim.attempts,
      outageAttempts: claim.outage_attempts,
      outageSince: claim.outage_since === null ? null : new Date(claim.outage_since),
    }, this.config);
    metrics.upsertOutcomes.inc({ outcome: decision.final ? 'failed' : 'retried' });
    const counting = decision.outage ? ' (a service is unavailable: retried without counting)' : '';
    this.logger.warn(`upsert ${claim.id} attempt ${claim.attempts} failed: ${reason}${decision.final ? ' (giving up)' : counting}`);
    await this.ds.query(
      `UPDATE ingestion.upserts
          SET status = $3::varchar,
              items_stored = items_stored OR $6,
              error = CASE WHEN $3::varchar = 'failed' AND (items_stored OR $6) THEN $4 || $7 ELSE $4 END,
              lease_until = CASE WHEN $3::varchar = 'failed' THEN NULL
                                 ELSE now() + make_interval(secs => $5::double precision / 1000) END,
              completed_at = CASE WHEN $3::varchar = 'failed' THEN now() ELSE NULL END,
              outage_attempts = outage_attempts + $8::int,
              outage_since = CASE WHEN $9 THEN COALESCE(outage_since, now()) ELSE outage_since END
        WHERE id = $1 AND status = 'processing' AND attempts = $2`,
      [
        claim.id, claim.attempts, decision.final ? 'failed' : 'processing', reason, decision.delayMs, stored, STORED_BEFORE_FAILING,
        decision.outage ? 1 : 0, isOutage(e),
      ],
    );
  }
}
