import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { announceListChange, BusClient, inBackground, WakeUp } from '@askdata/common';
import { DOORBELL, Doorbell } from '../infra/doorbell';
import { INGESTION_CONFIG } from '../ingestion.tokens';
import { IngestionConfig } from '../ingestion.config';
import { UpsertProcessor } from './upsert-processor';
import { Claim, UpsertQueue } from './upsert-queue';
import { isOutage, retryDecision } from './retry-decision';
import { ingestionMetrics, measureQueueDepthWith } from '../ingestion.metrics';

/**
 * A project's groups in one worker's hands at once: one written to the index while the next is prepared for it and
 * those behind are chunked and stored in catalog, so that the database always has the next statements waiting
 * (standalone's single connection runs them one at a time, in the order they come).
 */
const GROUPS_IN_HAND = 4;

/**
 * Moves upserts queued -> processing -> completed | failed: INGEST_CONCURRENCY loops that wait for the doorbell
 * (or poll), claim work from the queue in the database (`UpsertQueue`), so several workers share it, a lost doorbell
 * only delays it, and a worker that dies mid-batch has its lease expire and the batch retried; each loop runs a
 * project's groups one behind the other, renewing their leases while it works.
 */
@Injectable()
export class UpsertWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(UpsertWorker.name);
  private running = false;
  private readonly wakeUp = new WakeUp();
  private loops: Array<Promise<void>> = [];
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly queue: UpsertQueue,
    private readonly processor: UpsertProcessor,
    @Inject(INGESTION_CONFIG) private readonly config: IngestionConfig,
    @Inject(DOORBELL) private readonly doorbell: Doorbell,
    private readonly bus: BusClient,
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
    const depth = await this.queue.depth().catch(() => ({ queued: 0, processing: 0 }));
    for (const [status, n] of Object.entries(depth)) ingestionMetrics.queueDepth.set({ status }, n);
  }

  /** A new upsert was stored: ring the bell for whichever replica is free (this one included). */
  announce(upsertId: string): void {
    void this.doorbell.ring(upsertId);
  }

  /** The doorbell: new work may be waiting. */
  kick(): void {
    this.wakeUp.kick();
  }

  private async loop(n: number): Promise<void> {
    while (this.running) {
      let claims: Claim[] = [];
      try {
        await this.queue.sweep((projectId, ids) => announceListChange(this.bus, projectId, { settled: ids }));
        // A lease this process holds and could not renew in time (a database that answers late) is still its own.
        claims = await this.queue.claim(this.inFlight);
      } catch (e) {
        this.logger.warn(`worker ${n}: cannot claim work: ${(e as Error).message}`);
      }
      if (claims.length) {
        await this.runChain(claims);
        continue;
      }
      await this.wakeUp.wait(this.config.INGEST_POLL_MS);
    }
  }

  /**
   * Runs a claimed group and, once its items are stored in catalog and it is being indexed, the group behind it, and
   * so on: a project's consecutive groups overlap (one is chunked and stored in catalog while the ones ahead are
   * prepared and written to the index), so the database and the services' own work go on at once. Only a group that
   * touches none of the items of the groups in hand starts early (`claimBehind`), so a later upsert of an item still
   * always wins; GROUPS_IN_HAND at most are in hand at a time. Each group completes after the one ahead of it has
   * settled, so a project's upserts become `completed`, and their webhook events are written, in the order accepted.
   */
  private async runChain(first: Claim[]): Promise<void> {
    const inHand: Array<{ claims: Claim[]; done: Promise<void> }> = [];
    let claims = first;
    for (;;) {
      let indexing!: () => void;
      const indexed = new Promise<void>((resolve) => (indexing = resolve));
      const ahead = inHand.length ? inHand[inHand.length - 1].done : undefined;
      const group = { claims, done: this.run(claims, indexing, ahead) };
      inHand.push(group);
      // `run` settles every attempt itself, and never rejects.
      void group.done.then(() => inHand.splice(inHand.indexOf(group), 1));
      await Promise.race([indexed, group.done]);
      while (inHand.length >= GROUPS_IN_HAND) await inHand[0].done;
      const held = inHand.flatMap((g) => g.claims);
      const next =
        this.running && held.length
          ? await this.queue.claimBehind(held, this.inFlight).catch((e: Error) => {
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
   * One attempt at a group; `indexing` is called once its items are stored in catalog and are being indexed. Done,
   * it is completed once `ahead` (the attempt at the group before it in its chain, which never rejects) has settled.
   */
  private async run(claims: Claim[], indexing?: () => void, ahead?: Promise<void>): Promise<void> {
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
      await this.processor.process(claims[0].project_id, batches, {
        indexing,
        stored: (id) => stored.add(id),
        removed: (items) => this.queue.countRemoved(claims[0].id, items),
      });
      ingestionMetrics.upsertOutcomes.inc({ outcome: 'completed' }, claims.length);
      ingestionMetrics.upsertItems.inc(batches.reduce((n, b) => n + b.batch.items.length, 0));
      ingestionMetrics.upsertGroups.observe(claims.length);
      await ahead;
      // Every gateway stops showing them in progress before anyone can see them completed.
      await announceListChange(this.bus, claims[0].project_id, { settled: claims.map((c) => c.id) });
      await this.queue.complete(claims);
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

  /** The heartbeat: extends the leases of the claims still this attempt's, and logs those another worker took. */
  private async renew(claims: Claim[]): Promise<void> {
    try {
      const lost = await this.queue.renew(claims);
      if (lost.length) this.logger.warn(`lease lost (renewed too late) on upserts ${lost.join(', ')}`);
    } catch (e) {
      this.logger.warn(`cannot renew the leases of upserts ${claims.map((c) => c.id).join(', ')}: ${(e as Error).message}`);
    }
  }

  /**
   * A failed attempt is retried after a backoff (`retryDecision`): an unavailable service for as long as
   * UPSERT_OUTAGE_RETRY_MS allows, other failures until the attempts run out.
   */
  private async fail(claim: Claim, e: unknown, stored: boolean): Promise<void> {
    const reason = (e instanceof Error ? e.message : String(e)).slice(0, 2000);
    const decision = retryDecision(
      e,
      {
        attempts: claim.attempts,
        outageAttempts: claim.outage_attempts,
        outageSince: claim.outage_since === null ? null : new Date(claim.outage_since),
      },
      this.config,
    );
    ingestionMetrics.upsertOutcomes.inc({ outcome: decision.final ? 'failed' : 'retried' });
    const counting = decision.outage ? ' (a service is unavailable: retried without counting)' : '';
    this.logger.warn(`upsert ${claim.id} attempt ${claim.attempts} failed: ${reason}${decision.final ? ' (giving up)' : counting}`);
    if (decision.final) await announceListChange(this.bus, claim.project_id, { settled: [claim.id] });
    await this.queue.fail(claim, { reason, final: decision.final, delayMs: decision.delayMs, outage: decision.outage, outageSeen: isOutage(e), stored });
  }
}
