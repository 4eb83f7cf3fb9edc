import { BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
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

/** Indexes a rebuild cut short left on the posting blocks: invalid, named as REINDEX CONCURRENTLY names its own. */
const LEFT_BEHIND = `
  SELECT format('%I.%I', n.nspname, c.relname) AS name
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE i.indrelid = 'retrieval.posting_blocks'::regclass AND NOT i.indisvalid AND c.relname ~ '_cc(new|old)[0-9]*$'`;

export type KeyRebuildOutcome = 'rebuilt' | 'not_needed' | 'busy' | 'off';

/**
 * The posting blocks' primary key rebuilt online once it is mostly empty room. Each index batch writes a row per term
 * it holds, and merging them (`BlockMerges`) deletes most of those rows again: after a load, the key keeps a page for
 * every ten or so rows ever written, nine in ten of them gone (at 20,000 items of ~1.2 KB, 47 MB where 4.4 MB hold the
 * rows left). Vacuum lets later writes reuse that room but never gives it back. Once the index tables have been
 * vacuumed in a pause (`IndexVacuum`), a key taking over POSTING_KEY_REBUILD_RATIO times the room its rows need is
 * rebuilt with REINDEX CONCURRENTLY: writes and searches go on meanwhile, one replica does it, and an index a rebuild
 * cut short left behind (a replica stopped mid-way) is dropped first. A replica shutting down cancels its rebuild.
 */
@Injectable()
export class PostingKeyRebuild implements BeforeApplicationShutdown {
  private readonly logger = new Logger(PostingKeyRebuild.name);
  /** The database session of the rebuild in progress, to cancel at shutdown. */
  private rebuilding: number | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: Pick<RetrievalConfig, 'POSTING_KEY_REBUILD_RATIO'>,
    @Optional() @Inject(KEY_REBUILD_MIN_BYTES) private readonly minBytes: number = MIN_BYTES,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    if (this.rebuilding !== null) await this.ds.query('SELECT pg_cancel_backend($1)', [this.rebuilding]).catch(() => undefined);
  }

  /** Rebuilds the key if it is due; says what it did. */
  async run(): Promise<KeyRebuildOutcome> {
    const ratio = this.config.POSTING_KEY_REBUILD_RATIO;
    if (ratio === 0) return 'off';
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
        const [size] = (await session.query(KEY_SIZE)) as Array<{ bytes: number; needed: number }>;
        if (!size || size.bytes < this.minBytes || size.bytes <= ratio * size.needed) return 'not_needed';
        const started = Date.now();
        // As long as it takes: the pool's statement timeout is for requests (set back before the session is).
        await session.query('SET statement_timeout = 0');
        const [{ pid }] = (await session.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
        this.rebuilding = pid;
        try {
          await session.query('REINDEX INDEX CONCURRENTLY retrieval."PK_posting_blocks"');
        } finally {
          this.rebuilding = null;
          await session.query('RESET statement_timeout');
        }
        const [after] = (await session.query(KEY_SIZE)) as Array<{ bytes: number }>;
        this.logger.log(`rebuilt the posting blocks' key in ${Date.now() - started} ms: ${mb(size.bytes)} MB to ${mb(after.bytes)} MB (its rows need about ${mb(size.needed)} MB)`);
        return 'rebuilt';
      } finally {
        await session.query(`SELECT pg_advisory_unlock(${LOCK})`);
      }
    } finally {
      await session.release();
    }
  }
}

function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
