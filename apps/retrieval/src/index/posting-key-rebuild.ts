import { BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';

/** One replica rebuilds at a time (a session lock: REINDEX CONCURRENTLY runs outside a transaction). */
const LOCK = `hashtext('retrieval.posting_blocks key rebuild')`;
/** Below this, a key is not worth rebuilding, however empty. */
const MIN_BYTES = 8 * 2 ** 20;
/** The size below which a key is left as it is, if not {@link MIN_BYTES}. */
export const KEY_REBUILD_MIN_BYTES = Symbol('KEY_REBUILD_MIN_BYTES');

/**
 * The posting blocks' primary key as it is, and about what its live rows need: an entry a row (its project, term,
 * band, block and collection, as wide as the planner's statistics say, with the entry's header and line pointer),
 * pages filled to nine tenths as a build leaves them.
 */
const KEY_SIZE = `
  SELECT pg_relation_size('retrieval."PK_posting_blocks"'::regclass)::float8 AS bytes,
         GREATEST(c.reltuples, 0)::float8 * (44 + COALESCE(
           (SELECT sum(s.avg_width) FROM pg_stats s
             WHERE s.schemaname = 'retrieval' AND s.tablename = 'posting_blocks' AND s.attname IN ('term', 'collection')), 24)) / 0.9 AS needed
  FROM pg_class c WHERE c.oid = 'retrieval.posting_blocks'::regclass`;

/**
 * The posting blocks' table as it is (its heap, without TOAST or indexes), and about what its live rows need: each row
 * as wide as the planner's statistics say, with its header, line pointer and alignment. No statistics: nothing needed
 * is known (null), and the table is left alone.
 */
export const TABLE_SIZE = `
  SELECT pg_relation_size(c.oid)::float8 AS bytes, GREATEST(c.reltuples, 0)::float8 * (32 + w.width) AS needed
  FROM pg_class c, LATERAL (SELECT sum(s.avg_width)::float8 AS width FROM pg_stats s
                             WHERE s.schemaname = 'retrieval' AND s.tablename = 'posting_blocks') w
  WHERE c.oid = 'retrieval.posting_blocks'::regclass`;

/**
 * How long the rewrite waits for its lock before giving up: the sessions asking for the table meanwhile (a search
 * scored in SQL, an index write) queue behind it.
 */
const REWRITE_LOCK_TIMEOUT = '500ms';

/** Indexes a rebuild cut short left on the posting blocks: invalid, named as REINDEX CONCURRENTLY names its own. */
const LEFT_BEHIND = `
  SELECT format('%I.%I', n.nspname, c.relname) AS name
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE i.indrelid = 'retrieval.posting_blocks'::regclass AND NOT i.indisvalid AND c.relname ~ '_cc(new|old)[0-9]*$'`;

export type KeyRebuildOutcome = 'rebuilt' | 'rewritten' | 'not_needed' | 'busy' | 'off';

interface Size {
  bytes: number;
  needed: number | null;
}

/**
 * The posting blocks' primary key rebuilt online once it is mostly empty room. Each index batch writes a row per term
 * it holds, and merging them (`BlockMerges`) deletes most of those rows again: after a load, the key keeps a page for
 * every ten or so rows ever written, nine in ten of them gone (at 20,000 items of ~1.2 KB, 47 MB where 4.4 MB hold the
 * rows left). Vacuum lets later writes reuse that room but never gives it back. Once the index tables have been
 * vacuumed in a pause (`IndexVacuum`), a key taking over POSTING_KEY_REBUILD_RATIO times the room its rows need is
 * rebuilt with REINDEX CONCURRENTLY: writes and searches go on meanwhile, one replica does it, and an index a rebuild
 * cut short left behind (a replica stopped mid-way) is dropped first. A replica shutting down cancels its rebuild.
 *
 * The table's heap keeps that room too (five times its live rows after a load of 30,000 items), and a vacuum gives
 * back only empty pages at its end. So once writes and merges pause with the table or its key taking more than
 * POSTING_BLOCKS_REWRITE_RATIO times the room its rows need, both are rewritten instead (VACUUM FULL), giving up if
 * the table's lock is not had within REWRITE_LOCK_TIMEOUT. The table is locked while it runs, so index writes and
 * searches scored in SQL wait for it (searches of the indexes held in memory do not read it); its time grows with the
 * live rows, so a table whose live rows take more than POSTING_BLOCKS_REWRITE_MAX_MB is left to the key's online
 * rebuild (where POSTING_KEY_REBUILD_RATIO has it on) and to an operator's maintenance window.
 */
@Injectable()
export class PostingKeyRebuild implements BeforeApplicationShutdown {
  private readonly logger = new Logger(PostingKeyRebuild.name);
  /** The database session of the rebuild or rewrite in progress, to cancel at shutdown. */
  private rebuilding: number | null = null;
  /** A table too large to rewrite has been logged. */
  private toldTooLarge = false;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: Pick<RetrievalConfig, 'POSTING_KEY_REBUILD_RATIO' | 'POSTING_BLOCKS_REWRITE_RATIO' | 'POSTING_BLOCKS_REWRITE_MAX_MB'>,
    @Optional() @Inject(KEY_REBUILD_MIN_BYTES) private readonly minBytes: number = MIN_BYTES,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    if (this.rebuilding !== null) await this.ds.query('SELECT pg_cancel_backend($1)', [this.rebuilding]).catch(() => undefined);
  }

  /**
   * Rebuilds the key if it is due, or rewrites the table if that is due and writes have `paused` (merges too: a
   * rewrite while merges go on would be followed by others, each locking the table); says what it did.
   */
  async run({ paused }: { paused: boolean }): Promise<KeyRebuildOutcome> {
    const ratio = this.config.POSTING_KEY_REBUILD_RATIO;
    const rewrite = this.config.POSTING_BLOCKS_REWRITE_RATIO;
    if (ratio === 0 && rewrite === 0) return 'off';
    const session = this.ds.createQueryRunner();
    await session.connect();
    try {
      const [{ locked }] = (await session.query(`SELECT pg_try_advisory_lock(${LOCK}) AS locked`)) as Array<{ locked: boolean }>;
      if (!locked) return 'busy';
      try {
        for (const { name } of (await session.query(LEFT_BEHIND)) as Array<{ name: string }>) {
          this.logger.warn(`dropping ${name}, left behind by a rebuild of the posting blocks' key that was cut short`);
          await session.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
        }
        const [size] = (await session.query(KEY_SIZE)) as Size[];
        if (rewrite > 0 && paused) {
          const [table] = (await session.query(TABLE_SIZE)) as Size[];
          if ((this.due(table, rewrite) || this.due(size, rewrite)) && this.rewritable(table)) return await this.rewrite(session, table, size);
        }
        if (ratio === 0 || !this.due(size, ratio)) return 'not_needed';
        const started = Date.now();
        await this.runLong(session, 'REINDEX INDEX CONCURRENTLY retrieval."PK_posting_blocks"');
        const [after] = (await session.query(KEY_SIZE)) as Array<{ bytes: number }>;
        this.logger.log(
          `rebuilt the posting blocks' key in ${Date.now() - started} ms: ${mb(size.bytes)} MB to ${mb(after.bytes)} MB (its rows need about ${mb(size.needed!)} MB)`,
        );
        return 'rebuilt';
      } finally {
        await session.query(`SELECT pg_advisory_unlock(${LOCK})`);
      }
    } finally {
      await session.release();
    }
  }

  /** Takes more than `ratio` times the room its rows need (and is big enough to bother). */
  private due(size: Size | undefined, ratio: number): boolean {
    return !!size && size.needed !== null && size.bytes >= this.minBytes && size.bytes > ratio * size.needed;
  }

  /**
   * Small enough to rewrite: its live rows take at most POSTING_BLOCKS_REWRITE_MAX_MB (a larger table is logged, once);
   * without statistics, how long it would take is not known.
   */
  private rewritable(table: Size): boolean {
    if (table.needed === null) return false;
    if (table.needed <= this.config.POSTING_BLOCKS_REWRITE_MAX_MB * 2 ** 20) return true;
    if (!this.toldTooLarge)
      this.logger.warn(
        `the posting blocks' table (${mb(table.bytes)} MB, its rows needing about ${mb(table.needed)} MB) keeps its empty room: its live rows take more than POSTING_BLOCKS_REWRITE_MAX_MB (${this.config.POSTING_BLOCKS_REWRITE_MAX_MB}); docs/deploy.md says how to reclaim it`,
      );
    this.toldTooLarge = true;
    return false;
  }

  /**
   * Runs `statement` on `session` for as long as it takes (the pool's statement timeout is for requests; set back
   * before the session is), cancelled if this replica shuts down meanwhile; with `lockTimeout`, giving up on its lock
   * after that long.
   */
  private async runLong(session: QueryRunner, statement: string, lockTimeout?: string): Promise<void> {
    await session.query('SET statement_timeout = 0');
    if (lockTimeout) await session.query(`SET lock_timeout = '${lockTimeout}'`);
    const [{ pid }] = (await session.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    this.rebuilding = pid;
    try {
      await session.query(statement);
    } finally {
      this.rebuilding = null;
      if (lockTimeout) await session.query('RESET lock_timeout');
      await session.query('RESET statement_timeout');
    }
  }

  /** The table and its key rewritten (VACUUM FULL); 'busy' when its lock is not had within REWRITE_LOCK_TIMEOUT. */
  private async rewrite(session: QueryRunner, table: Size, key: Size): Promise<KeyRebuildOutcome> {
    const started = Date.now();
    try {
      await this.runLong(session, 'VACUUM (FULL, ANALYZE) retrieval.posting_blocks', REWRITE_LOCK_TIMEOUT);
    } catch (e) {
      if (isLockTimeout(e)) return 'busy';
      throw e;
    }
    // A rewrite leaves no page marked all-visible (every later vacuum would read them all, and no read of the key is
    // answered from the key alone): a plain vacuum of the compact table marks them, unless another session holds it.
    await this.runLong(session, 'VACUUM (SKIP_LOCKED) retrieval.posting_blocks');
    const [tableAfter] = (await session.query(TABLE_SIZE)) as Size[];
    const [keyAfter] = (await session.query(KEY_SIZE)) as Size[];
    this.logger.log(
      `rewrote the posting blocks in ${Date.now() - started} ms: the table ${mb(table.bytes)} MB to ${mb(tableAfter.bytes)} MB, its key ${mb(key.bytes)} MB to ${mb(keyAfter.bytes)} MB`,
    );
    return 'rewritten';
  }
}

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function isLockTimeout(e: unknown): boolean {
  const error = e as { code?: string; driverError?: { code?: string } };
  return (error.code ?? error.driverError?.code) === '55P03';
}
