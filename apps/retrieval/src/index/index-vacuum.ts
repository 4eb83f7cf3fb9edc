import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { metrics } from '@askdata/common';
import { DataSource } from 'typeorm';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';

/** Writes quiet for this long, and the changes since the last vacuum are vacuumed... */
const IDLE_MS = 2000;
/** ...provided they are at least this share of INDEX_VACUUM_ROWS (a few re-upserted items are not worth it). */
const IDLE_SHARE = 0.1;

export const VACUUM_STATEMENT = 'VACUUM (ANALYZE, SKIP_LOCKED) retrieval.posting_blocks, retrieval.chunks, retrieval.terms';

/**
 * Keeps the PostgreSQL index fast as it grows: after INDEX_VACUUM_ROWS postings have been written or removed, or once
 * writing pauses with a fair share of that pending, the index tables are vacuumed and analysed in the background.
 *
 * Replacing an item rewrites the posting blocks that held its postings, leaving dead rows behind, and a load leaves
 * the planner's statistics stale; searches over a grown index then read more pages than they need. Vacuum reclaims
 * the dead rows and sets the visibility map, and analyse refreshes the statistics. PostgreSQL's autovacuum would get
 * there eventually; the embedded database of standalone mode has no autovacuum at all. One
 * vacuum runs at a time per replica; replicas skip tables another one is vacuuming.
 */
@Injectable()
export class IndexVacuum implements OnApplicationShutdown {
  private readonly logger = new Logger(IndexVacuum.name);
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: Pick<RetrievalConfig, 'INDEX_VACUUM_ROWS'>,
  ) {}

  /** Records postings written or removed by a committed change. */
  changed(rows: number): void {
    if (this.config.INDEX_VACUUM_ROWS === 0 || rows <= 0 || this.closed) return;
    this.pending += rows;
    this.schedule();
  }

  private schedule(): void {
    const threshold = this.config.INDEX_VACUUM_ROWS;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending >= threshold) void this.vacuum();
    else if (this.pending >= threshold * IDLE_SHARE) this.timer = setTimeout(() => void this.vacuum(), IDLE_MS).unref();
  }

  onApplicationShutdown(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** Settles when the vacuum in progress (if any) has finished. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async vacuum(): Promise<void> {
    if (this.running || this.closed) return;
    const rows = this.pending;
    this.pending = 0;
    const started = Date.now();
    const seconds = () => (Date.now() - started) / 1000;
    this.running = this.ds.query(VACUUM_STATEMENT).then(
      () => {
        metrics.indexVacuums.observe({ outcome: 'done' }, seconds());
        this.logger.debug(`vacuumed the index after ${rows} changed postings in ${Date.now() - started} ms`);
      },
      (e: Error) => {
        metrics.indexVacuums.observe({ outcome: 'failed' }, seconds());
        this.logger.warn(`index vacuum failed (${e.message}); it is tried again after the next changes`);
      },
    );
    await this.running;
    this.running = null;
    // Changes that came in meanwhile wait for their own turn.
    if (this.pending > 0 && !this.closed) this.schedule();
  }
}
