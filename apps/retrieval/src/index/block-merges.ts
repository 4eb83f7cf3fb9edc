import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { inBackground, outsideRequest, TimeSlices } from '@askdata/common';
import { DataSource } from 'typeorm';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { retrievalMetrics } from '../retrieval.metrics';
import { IndexVacuum } from './index-vacuum';

/**
 * How long a merge's transaction should hold the index's lock (and, standalone, the database's single session, which
 * serves the reads waiting between them): the terms a transaction takes are halved or doubled to keep near it.
 */
const STEP_MS = 25;
const FIRST_STEP_TERMS = 200;
/** At most this many terms a transaction: a common term's rows outnumber a rare one's by hundreds. */
const MAX_STEP_TERMS = 1000;
/** The terms of an index's unmerged batches kept, in characters of their lists; beyond it the oldest are let go. */
const MAX_PENDING_CHARS = 32 * 1024 * 1024;
/** Newest rows of a term (band and collection) a merge looks at. */
const MAX_TAIL = 512;

/**
 * The small posting blocks of each (term, band, collection) among `$2` (those holding fewer than `$3` postings, among
 * its newest MAX_TAIL), merged run by run: the small rows between two rows that are not (or after the newest such
 * row) become one row, keyed by the oldest one's block, best impact first, its count of postings their sum. Rows of a
 * merge are contiguous in block order, so a chunk's postings of a term are in the newest row at or before its block
 * that holds them (`PostgresIndex.remove`). Each term's rows are read along the key: `OFFSET 0` keeps the planner from
 * reading all the project's rows instead, as it did with statistics taken while the index was small.
 */
export const MERGE_BLOCKS = `WITH t AS (
    SELECT b.row, b.term, b.band, b.collection, b.block, b.n >= $3 AS big, sum((b.n >= $3)::int) OVER w AS run, row_number() OVER w AS k
    FROM unnest($2::text[]) AS q(term)
    CROSS JOIN LATERAL (SELECT b.ctid AS row, b.term, b.band, b.collection, b.block, b.n FROM retrieval.posting_blocks b WHERE b.project_id = $1 AND b.term = q.term OFFSET 0) b
    WINDOW w AS (PARTITION BY b.term, b.band, b.collection ORDER BY b.block DESC)),
  runs AS (
    SELECT row, term, band, collection, block, run, count(*) OVER (PARTITION BY term, band, collection, run) AS rows
    FROM t WHERE NOT big AND k <= ${MAX_TAIL}),
  gone AS (
    DELETE FROM retrieval.posting_blocks b WHERE b.ctid = ANY(ARRAY(SELECT row FROM runs WHERE rows > 1))
    RETURNING b.term, b.band, b.block, b.collection, b.chunk_ids, b.impacts, b.tenants),
  made AS (
    INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants, n)
    SELECT $1, g.term, g.band, min(g.block), g.collection,
      array_agg(p.c ORDER BY p.i DESC, p.c), array_agg(p.i ORDER BY p.i DESC, p.c),
      CASE WHEN bool_and(p.t IS NULL) THEN '{}'::int[] ELSE array_agg(p.t ORDER BY p.i DESC, p.c) END, count(*)::int
    FROM gone g
    JOIN runs r ON r.term = g.term AND r.band = g.band AND r.block = g.block AND r.collection = g.collection
    CROSS JOIN LATERAL unnest(g.chunk_ids, g.impacts, g.tenants) AS p(c, i, t)
    WHERE p.c IS NOT NULL
    GROUP BY g.term, g.band, g.collection, r.run
    RETURNING n)
  SELECT (SELECT count(*) FROM gone)::int AS merged, (SELECT count(*) FROM made)::int AS made, (SELECT COALESCE(sum(n), 0) FROM made)::int AS postings`;

/** An index's batches written since its last merge: their terms, as written (array literals) or as left by a merge cut short. */
interface Pending {
  terms: Array<string | string[]>;
  chars: number;
  /** Batches written: a merge stops between steps when one is (unless BLOCK_MERGE_BATCHES of them made it due). */
  writes: number;
  timer: NodeJS.Timeout | undefined;
  /** A merge of them has been asked for (and not begun). */
  asked: boolean;
}

/**
 * Fewer, fuller posting blocks, made in the background. Each index batch writes a block row per (term, band,
 * collection) it holds, and most terms of a batch are rare: at ~1.2 KB an item, half the rows hold one posting, and a
 * row's headers and key outweigh it many times. Once writes to an index pause for BLOCK_MERGE_QUIET_MS, the terms the
 * batches written since then hold are merged, in transactions of about STEP_MS under the index's write lock: of each
 * (term, band, collection), each run of blocks holding fewer than BLOCK_MERGE_POSTINGS postings becomes one row. A
 * term's common blocks are left as they are; a rare term's blocks become one row, merged again with its next small
 * ones. A write to the index stops a merge between transactions (the rest waits for the next pause), except once
 * BLOCK_MERGE_BATCHES batches have been written to it without a pause: a trickle of small upserts, each its own batch,
 * writes a row for every term of every item, and is merged while it goes on, taking turns with it. A merge that
 * fails is logged and left; its terms are merged when a later batch holds them, as are those of batches let go when
 * an index's unmerged terms pass MAX_PENDING_CHARS, or not merged before a restart. Merges leave dead rows, which
 * the index's vacuum reclaims like those replaced blocks leave.
 */
@Injectable()
export class BlockMerges implements OnApplicationShutdown {
  private readonly log = new Logger(BlockMerges.name);
  private readonly pending = new Map<string, Pending>();
  /** One merge at a time per replica. */
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: Pick<RetrievalConfig, 'BLOCK_MERGE_QUIET_MS' | 'BLOCK_MERGE_BATCHES' | 'BLOCK_MERGE_POSTINGS'>,
    private readonly vacuum: IndexVacuum,
  ) {}

  /** A committed batch of index `key` wrote blocks of `terms` (`PreparedBatch.blocks[0]`, an array literal). */
  written(key: string, terms: string): void {
    if (this.config.BLOCK_MERGE_QUIET_MS === 0 || this.closed) return;
    const pending = this.pendingOf(key);
    pending.terms.push(terms);
    pending.chars += terms.length;
    while (pending.chars > MAX_PENDING_CHARS && pending.terms.length > 1) pending.chars -= size(pending.terms.shift()!);
    pending.writes++;
    if (pending.asked) return;
    clearTimeout(pending.timer);
    if (pending.writes >= this.config.BLOCK_MERGE_BATCHES) {
      pending.asked = true;
      void this.merge(key, true);
    } else pending.timer = setTimeout(() => void this.merge(key), this.config.BLOCK_MERGE_QUIET_MS).unref();
  }

  /** The index was dropped: nothing of it is merged. */
  dropped(key: string): void {
    clearTimeout(this.pending.get(key)?.timer);
    this.pending.delete(key);
  }

  onApplicationShutdown(): void {
    this.closed = true;
    for (const pending of this.pending.values()) clearTimeout(pending.timer);
    this.pending.clear();
  }

  /**
   * Merges index `key`'s blocks of the terms written since its last merge, after any merge in progress; stopped
   * between steps by a write to the index, unless `due` (its writes reached BLOCK_MERGE_BATCHES).
   */
  merge(key: string, due = false): Promise<void> {
    this.running = this.running.then(() => this.mergeNow(key, due)).catch((e: Error) => this.log.warn(`Posting blocks of index ${key} not merged (${e.message})`));
    return this.running;
  }

  private async mergeNow(key: string, due: boolean): Promise<void> {
    const pending = this.pending.get(key);
    if (!pending || this.closed) return;
    retrievalMetrics.blockMergeRunning.set(1);
    try {
      await this.mergeTerms(key, pending, due);
    } finally {
      retrievalMetrics.blockMergeRunning.set(0);
    }
  }

  private async mergeTerms(key: string, pending: Pending, due: boolean): Promise<void> {
    clearTimeout(pending.timer);
    this.pending.delete(key);
    // Read in slices: the lists of a large load hold hundreds of thousands of terms, and searches wait on this thread.
    const distinct = new Set<string>();
    const slices = new TimeSlices();
    for (const list of pending.terms) {
      if (slices.due()) await slices.next();
      for (const term of typeof list === 'string' ? termsOf(list) : list) distinct.add(term);
    }
    const terms = [...distinct];
    const started = Date.now();
    let merged = 0;
    let made = 0;
    let outcome: 'done' | 'stopped' | 'failed' = 'done';
    let step = FIRST_STEP_TERMS;
    // Each transaction takes the `step` terms after the last one's: a step changed meanwhile skips none.
    for (let from = 0, to = 0; from < terms.length; from = to) {
      to = Math.min(terms.length, from + step);
      if (this.closed || (!due && (this.pending.get(key)?.writes ?? 0) > 0)) {
        // Written to meanwhile: the rest waits for the next pause.
        if (!this.closed) this.requeue(key, terms.slice(from));
        outcome = 'stopped';
        break;
      }
      try {
        const began = Date.now();
        // In key order, as the statement reads them.
        const some = terms.slice(from, to).sort();
        const [done] = await outsideRequest(() =>
          inBackground(() =>
            this.ds.transaction(async (tx) => {
              await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`retrieval:${key}`]);
              return tx.query<Array<{ merged: number; made: number; postings: number }>>(MERGE_BLOCKS, [key, some, this.config.BLOCK_MERGE_POSTINGS]);
            }),
          ),
        );
        const took = Date.now() - began;
        if (took > STEP_MS * 2) step = Math.max(10, step >> 1);
        else if (took < STEP_MS / 2) step = Math.min(MAX_STEP_TERMS, Math.ceil(step * 1.5));
        merged += done.merged;
        made += done.made;
        retrievalMetrics.blockMerges.inc({ what: 'merged' }, done.merged);
        retrievalMetrics.blockMerges.inc({ what: 'made' }, done.made);
        this.vacuum.changed(0, done.postings);
      } catch (e) {
        outcome = 'failed';
        this.log.warn(`Posting blocks of index ${key} not merged (${(e as Error).message}); their terms are merged when a later batch holds them`);
        break;
      }
    }
    retrievalMetrics.blockMergeRuns.observe({ outcome }, (Date.now() - started) / 1000);
    if (merged) this.log.debug(`merged ${merged} posting blocks of index ${key} into ${made} in ${Date.now() - started} ms (${outcome})`);
  }

  private pendingOf(key: string): Pending {
    let pending = this.pending.get(key);
    if (!pending) this.pending.set(key, (pending = { terms: [], chars: 0, writes: 0, timer: undefined, asked: false }));
    return pending;
  }

  /** Terms a merge cut short left, ahead of those written since. */
  private requeue(key: string, terms: string[]): void {
    const pending = this.pendingOf(key);
    pending.terms.unshift(terms);
    pending.chars += size(terms);
    if (!pending.timer && !pending.asked) pending.timer = setTimeout(() => void this.merge(key), this.config.BLOCK_MERGE_QUIET_MS).unref();
  }
}

function size(terms: string | string[]): number {
  return typeof terms === 'string' ? terms.length : terms.reduce((n, t) => n + t.length + 3, 0);
}

/** The elements of a text array literal whose elements are all quoted (`arrayLiteral`). */
export function termsOf(literal: string): string[] {
  const out: string[] = [];
  let i = 1;
  while (i < literal.length - 1) {
    // At an element's opening quote.
    i++;
    let text = '';
    let start = i;
    for (;;) {
      const c = literal.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        // A backslash: the character after it is taken as it is.
        text += literal.slice(start, i);
        start = i + 1;
        i += 2;
        continue;
      }
      i++;
    }
    out.push(text + literal.slice(start, i));
    // Past the closing quote and the comma.
    i += 2;
  }
  return out;
}
