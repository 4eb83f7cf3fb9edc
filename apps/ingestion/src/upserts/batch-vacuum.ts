import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { runSkipLocked } from '@askdata/common';
import { DataSource } from 'typeorm';

/** Stored batches deleted after which their table is vacuumed (about 35 MB of upserts of 500 items of ~1.2 KB). */
export const BATCH_VACUUM_EVERY = 50;
/** Deletions quiet for this long, and those not yet vacuumed are. */
export const BATCH_VACUUM_IDLE_MS = 5000;
export const BATCH_VACUUM_STATEMENT = 'VACUUM (SKIP_LOCKED) ingestion.upsert_batches';

/**
 * A completed upsert's stored batch is deleted with its completion; this vacuums their table every
 * BATCH_VACUUM_EVERY of them, in the background and one at a time, so that the space they took is used again:
 * standalone's embedded database has no autovacuum, and PostgreSQL's may come late during a long load. Once
 * deletions pause for BATCH_VACUUM_IDLE_MS, the rest are vacuumed too: at the end of a load that leaves the table
 * empty, and the vacuum then gives its files back (a load of 40,000 items left 45 MB behind without it). A vacuum that
 * skipped the table (autovacuum, or another replica's vacuum, had it) leaves its deletions counted, for the next pause.
 */
@Injectable()
export class BatchVacuum implements OnApplicationShutdown {
  private readonly logger = new Logger(BatchVacuum.name);
  private deleted = 0;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly ds: DataSource) {}

  /** `n` more batches were deleted. */
  note(n: number): void {
    if (this.closed || n <= 0) return;
    this.deleted += n;
    this.vacuumInPause();
    if (this.deleted >= BATCH_VACUUM_EVERY) this.vacuum();
  }

  onApplicationShutdown(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** Vacuums once deletions have paused for BATCH_VACUUM_IDLE_MS from now. */
  private vacuumInPause(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.vacuum(), BATCH_VACUUM_IDLE_MS).unref();
  }

  private vacuum(): void {
    if (this.running || this.closed || this.deleted === 0) return;
    const deleted = this.deleted;
    this.deleted = 0;
    this.running = (async () => {
      try {
        const skipped = await runSkipLocked(this.ds, [BATCH_VACUUM_STATEMENT]);
        if (this.closed || skipped.length === 0) return;
        // Skipped: tried again once deletions pause, not at once (autovacuum may hold the table a while).
        this.deleted += deleted;
        this.vacuumInPause();
      } catch (e) {
        this.logger.warn(`vacuum of the stored batches failed: ${(e as Error).message}`);
      } finally {
        this.running = null;
      }
    })();
  }

  /** The vacuum under way, if any (for tests and shutdown). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }
}
