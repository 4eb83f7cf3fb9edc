import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { inBackground, outsideRequest, runSkipLocked } from '@askdata/common';
import { DataSource } from 'typeorm';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { retrievalMetrics } from '../retrieval.metrics';
import { PostingKeyRebuild } from './posting-key-rebuild';

/** Writes quiet for this long, and the changes since the last vacuum are vacuumed... */
const IDLE_MS = 5000;
/**
 * ...provided they are at least this share of INDEX_VACUUM_ROWS (a few re-upserted items are not worth it); removals
 * of this share of it make the analyse due at the threshold a vacuum as well.
 */
const FAIR_SHARE = 0.1;

const TABLES = ['retrieval.posting_blocks', 'retrieval.chunks'];
/**
 * A statement a table: standalone's single database session serves the reads waiting between them, instead of after
 * all of them (an analyse of the index's tables took about 570 ms at 22,000 items, when they were three).
 */
export const VACUUM_STATEMENTS = TABLES.map((t) => `VACUUM (ANALYZE, SKIP_LOCKED) ${t}`);
export const ANALYZE_STATEMENTS = TABLES.map((t) => `ANALYZE (SKIP_LOCKED) ${t}`);

/**
 * Keeps the PostgreSQL index fast as it grows: every INDEX_VACUUM_ROWS postings written or removed, the planner's
 * statistics are refreshed in the background, and the tables vacuumed too if a fair share of those postings were
 * removed; once writing pauses with a fair share of changes not yet vacuumed, the tables are vacuumed and analysed.
 *
 * Replacing an item rewrites the posting blocks that held its postings, leaving dead rows behind, and a load leaves
 * the planner's statistics stale; searches over a grown index then read more pages than they need. Vacuum reclaims
 * the dead rows and sets the visibility map, and analyse refreshes the statistics. New items leave no dead rows,
 * and vacuuming the pages they fill costs about as much as writing them, so while items are only added that waits
 * for a pause; analyse, which samples, does not. PostgreSQL's autovacuum would get there eventually; the embedded
 * database of standalone mode has no autovacuum at all. One vacuum or analyse runs at a time per replica; replicas
 * skip tables another one is vacuuming, and a vacuum that skipped a table is tried again after the next pause. After
 * a vacuum, the posting blocks' key is rebuilt if it is mostly empty room, and once writes pause after one (a vacuum
 * then, or none if too few changes are left) their table may be rewritten instead (`PostingKeyRebuild`), before the
 * next run.
 */
@Injectable()
export class IndexVacuum implements OnApplicationShutdown {
  private readonly logger = new Logger(IndexVacuum.name);
  /** Postings written or removed since the last vacuum or analyse... */
  private pending = 0;
  /** ...and since the last vacuum, all of them and those removed. */
  private unvacuumed = 0;
  private removed = 0;
  /** A vacuum ran while writes went on: the next pause looks at the posting blocks' key and table. */
  private pauseLookOwed = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: Pick<RetrievalConfig, 'INDEX_VACUUM_ROWS'>,
    @Optional() private readonly keyRebuild?: PostingKeyRebuild,
  ) {}

  /** Records the postings a committed change wrote and removed. */
  changed(written: number, removed = 0): void {
    if (this.config.INDEX_VACUUM_ROWS === 0 || written + removed <= 0 || this.closed) return;
    this.pending += written + removed;
    this.unvacuumed += written + removed;
    this.removed += removed;
    this.schedule();
  }

  private schedule(): void {
    const threshold = this.config.INDEX_VACUUM_ROWS;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending >= threshold) void this.run(this.removed >= threshold * FAIR_SHARE);
    else if (this.unvacuumed >= threshold * FAIR_SHARE) this.timer = setTimeout(() => void this.run(true, true), IDLE_MS).unref();
    else if (this.pauseLookOwed) this.timer = setTimeout(() => void this.lookInPause(), IDLE_MS).unref();
  }

  /** Writes paused with too few changes left for a vacuum: the key and table are looked at all the same. */
  private async lookInPause(): Promise<void> {
    if (this.running || this.closed) return;
    this.pauseLookOwed = false;
    this.running = this.lookAtPostings(true);
    await this.running;
    this.running = null;
    if (!this.closed && this.pending > 0) this.schedule();
  }

  onApplicationShutdown(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** Settles when the vacuum in progress (if any) has finished. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** Vacuums and analyses the index tables, or only analyses them; `paused`: writes (merges too) have paused. */
  private async run(vacuum: boolean, paused = false): Promise<void> {
    if (this.running || this.closed) return;
    const rows = this.pending;
    const { unvacuumed, removed } = this;
    this.pending = 0;
    if (vacuum) this.unvacuumed = this.removed = 0;
    const started = Date.now();
    const seconds = () => (Date.now() - started) / 1000;
    const kind = vacuum ? 'vacuum' : 'analyze';
    let done = false;
    // The tables skipped count only for a vacuum: an analyse skipped is had again at the next threshold.
    const statements = async (): Promise<string[]> => {
      const skipped = await runSkipLocked(this.ds, vacuum ? VACUUM_STATEMENTS : ANALYZE_STATEMENTS, () => this.closed);
      return vacuum && !this.closed ? skipped : [];
    };
    this.running = statements().then(
      async (skipped) => {
        done = true;
        if (skipped.length > 0) {
          // Another replica or autovacuum had the table: its changes still count, for the vacuum after the next pause.
          this.unvacuumed += unvacuumed;
          this.removed += removed;
          retrievalMetrics.indexVacuums.observe({ kind, outcome: 'skipped' }, seconds());
          this.logger.debug(`the index vacuum skipped ${skipped.join(', ')} (in use); it is tried again after the next pause`);
          return;
        }
        retrievalMetrics.indexVacuums.observe({ kind, outcome: 'done' }, seconds());
        this.logger.debug(`${vacuum ? 'vacuumed' : 'analysed'} the index after ${rows} changed postings in ${Date.now() - started} ms`);
        if (!vacuum || this.closed) return;
        this.pauseLookOwed = !paused && !!this.keyRebuild;
        await this.lookAtPostings(paused);
      },
      (e: Error) => {
        retrievalMetrics.indexVacuums.observe({ kind, outcome: 'failed' }, seconds());
        this.logger.warn(`index ${kind} failed (${e.message}); it is tried again after the next changes`);
        if (vacuum) {
          this.unvacuumed += unvacuumed;
          this.removed += removed;
        }
      },
    );
    await this.running;
    this.running = null;
    // Changes that came in meanwhile wait for their own turn, as do the vacuum and the look at the key a pause brings;
    // after a failure, nothing is tried again before the next change.
    if (!this.closed && (this.pending > 0 || (done && this.unvacuumed > 0) || this.pauseLookOwed)) this.schedule();
  }

  /**
   * The posting blocks' key rebuilt, or (`paused`) their table rewritten, if due; a failure is logged, and they are
   * looked at again after the next vacuum.
   */
  private async lookAtPostings(paused: boolean): Promise<void> {
    if (!this.keyRebuild) return;
    const started = Date.now();
    try {
      const outcome = await outsideRequest(() => inBackground(() => this.keyRebuild!.run({ paused })));
      if (outcome === 'rebuilt' || outcome === 'rewritten')
        retrievalMetrics.indexVacuums.observe({ kind: outcome === 'rebuilt' ? 'key_rebuild' : 'rewrite', outcome: 'done' }, (Date.now() - started) / 1000);
    } catch (e) {
      retrievalMetrics.indexVacuums.observe({ kind: 'key_rebuild', outcome: 'failed' }, (Date.now() - started) / 1000);
      this.logger.warn(`rebuilding the posting blocks' key or table failed (${(e as Error).message}); it is looked at again after the next vacuum`);
    }
  }
}
