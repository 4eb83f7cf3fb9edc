import { Inject, Injectable } from '@nestjs/common';
import { ReindexView } from '@askdata/contracts';
import { ANALYZER_VERSION, ENGLISH_TERMS_SINCE, isoMicro, uuidv7 } from '@askdata/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';

/** A row of `retrieval.project_indexes`, as read. */
export interface IndexRow {
  project_id: string;
  live_key: string;
  backend: string;
  analyzer: number;
  build_status: 'none' | 'building' | 'completed' | 'failed';
  build_reason: RebuildReason | null;
  build_key: string | null;
  build_backend: string | null;
  build_analyzer: number | null;
  build_cursor: string | null;
  build_mark: string;
  build_copied: boolean;
  build_languages: Record<string, number>;
  chunks_done: string;
  chunks_total: string;
  started_at: Date | null;
  finished_at: Date | null;
  error: string | null;
  retired_key: string | null;
  retired_backend: string | null;
}

/** Why a rebuild was started. */
export type RebuildReason = 'requested' | 'analyzer' | 'backend';

/** A write to an item of the project during a rebuild, as noted in `retrieval.build_writes`. */
export interface BuildWrite {
  item_id: string;
  in_flight: number;
  started: string;
}

/** A failed rebuild the service started itself is tried again after this long. */
const RETRY_FAILED_MS = 5 * 60_000;

/**
 * An index (`i`) an older analyzer wrote with the terms this one would: English chunks only, written since
 * `ENGLISH_TERMS_SINCE`, in this backend ($1 the analyzer, $2 `ENGLISH_TERMS_SINCE`, $3 the backend).
 */
const UNCHANGED_TERMS = `i.analyzer >= $2 AND i.analyzer < $1 AND i.backend = $3
         AND NOT EXISTS (SELECT 1 FROM retrieval.project_languages l WHERE l.project_id = i.project_id AND l.language <> 'en')`;

/**
 * The statements on a project's index state (`retrieval.project_indexes`) and on the writes noted during its rebuild
 * (`retrieval.build_writes`): the rebuild's lease, claimed and renewed by this process, fences every update of it.
 * IndexRebuilds runs the rebuilds with them.
 */
@Injectable()
export class ProjectIndexes {
  /** This process, as the owner of the rebuild leases it takes. */
  private readonly me = `${process.pid}-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
  ) {}

  async row(projectId: string): Promise<IndexRow | null> {
    const [row] = await this.ds.query<IndexRow[]>('SELECT * FROM retrieval.project_indexes WHERE project_id = $1', [projectId]);
    return row ?? null;
  }

  /** The project's row; a project indexed for the first time gets one: its id as key, the configured backend, this analyzer. */
  async rowForWrite(projectId: string): Promise<IndexRow> {
    const row = await this.row(projectId);
    if (row) return row;
    await this.ds.query(`INSERT INTO retrieval.project_indexes (project_id, live_key, backend, analyzer) VALUES ($1, $1, $2, $3) ON CONFLICT (project_id) DO NOTHING`, [
      projectId,
      this.config.SEARCH_BACKEND,
      ANALYZER_VERSION,
    ]);
    return (await this.row(projectId))!;
  }

  /** Lets go of the leases of the rebuilds this process holds, so another replica takes them over at once. */
  async releaseLeases(): Promise<void> {
    await this.ds.query(`UPDATE retrieval.project_indexes SET owner = NULL, lease_until = NULL WHERE owner = $1 AND build_status = 'building'`, [this.me]);
  }

  /** Notes that items are being written during a rebuild: it copies them again once the writes end. */
  async noteWrites(buildKey: string, itemIds: string[]): Promise<void> {
    await this.ds.query(
      `INSERT INTO retrieval.build_writes (build_key, item_id, started, in_flight)
       SELECT $1, id, nextval('retrieval.build_stamp_seq'), 1 FROM unnest($2::uuid[]) AS id
       ON CONFLICT (build_key, item_id) DO UPDATE SET started = EXCLUDED.started, in_flight = retrieval.build_writes.in_flight + 1`,
      [buildKey, itemIds],
    );
  }

  /** Notes that writes noted with noteWrites have ended. */
  async endWrites(buildKey: string, itemIds: string[]): Promise<void> {
    await this.ds.query(
      `UPDATE retrieval.build_writes SET in_flight = GREATEST(in_flight - 1, 0), done = nextval('retrieval.build_stamp_seq')
         WHERE build_key = $1 AND item_id = ANY($2::uuid[])`,
      [buildKey, itemIds],
    );
  }

  /** Marks a rebuild of the project started, unless one is under way; returns the row when it was started. */
  async start(projectId: string, reason: RebuildReason): Promise<IndexRow | undefined> {
    const [[started]] = await this.ds.query<[IndexRow[], number]>(
      `UPDATE retrieval.project_indexes SET build_status = 'building', build_reason = $2, build_key = $3, build_backend = $4,
         build_analyzer = $5, build_cursor = NULL, build_mark = nextval('retrieval.build_stamp_seq'), build_copied = false,
         build_languages = '{}', chunks_done = 0, chunks_total = 0, started_at = now(), finished_at = NULL, error = NULL,
         owner = NULL, lease_until = NULL
       WHERE project_id = $1 AND build_status <> 'building'
       RETURNING *`,
      [projectId, reason, uuidv7(), this.config.SEARCH_BACKEND, ANALYZER_VERSION],
    );
    return started;
  }

  /**
   * Marks as this analyzer's the indexes that an older one wrote with the same terms: those of projects with English
   * chunks only, written since `ENGLISH_TERMS_SINCE`. A chunk's language is recorded before it is written, so a
   * project that has just been given another language is rebuilt. Returns the projects marked.
   */
  async keepUnchanged(): Promise<string[]> {
    const [rows] = await this.ds.query<[Array<{ project_id: string }>, number]>(
      `UPDATE retrieval.project_indexes i SET analyzer = $1
       WHERE ${UNCHANGED_TERMS} AND i.build_status <> 'building'
       RETURNING i.project_id`,
      [ANALYZER_VERSION, ENGLISH_TERMS_SINCE, this.config.SEARCH_BACKEND],
    );
    return rows.map((r) => r.project_id);
  }

  /**
   * Projects whose index another analyzer version wrote, or that lives in the other backend (a failed rebuild waits a
   * while); not those `keepUnchanged` marks, even when one was written with an older analyzer after it last looked.
   */
  async due(): Promise<Array<{ project_id: string; analyzer: number; backend: string }>> {
    return this.ds.query(
      `SELECT project_id, analyzer, backend FROM retrieval.project_indexes i
       WHERE (analyzer <> $1 OR backend <> $3) AND build_status <> 'building' AND NOT (${UNCHANGED_TERMS})
         AND (build_status <> 'failed' OR finished_at < now() - make_interval(secs => $4::float8 / 1000))
       ORDER BY project_id LIMIT 100`,
      [ANALYZER_VERSION, ENGLISH_TERMS_SINCE, this.config.SEARCH_BACKEND, RETRY_FAILED_MS],
    );
  }

  /** Indexes replaced longer than REINDEX_RETIRE_MS ago: no search or write still reads or writes them. */
  async retired(): Promise<Array<{ project_id: string; retired_key: string; retired_backend: string }>> {
    return this.ds.query(
      `SELECT project_id, retired_key, retired_backend FROM retrieval.project_indexes
       WHERE retired_key IS NOT NULL AND retired_at < now() - make_interval(secs => $1::float8 / 1000) LIMIT 100`,
      [this.config.REINDEX_RETIRE_MS],
    );
  }

  async forgetRetired(projectId: string, retiredKey: string): Promise<void> {
    await this.ds.query(`UPDATE retrieval.project_indexes SET retired_key = NULL, retired_backend = NULL, retired_at = NULL WHERE project_id = $1 AND retired_key = $2`, [
      projectId,
      retiredKey,
    ]);
  }

  /** Takes the lease of the oldest rebuild nobody holds (or whose holder let it lapse). */
  async claim(): Promise<IndexRow | undefined> {
    const [[row]] = await this.ds.query<[IndexRow[], number]>(
      `UPDATE retrieval.project_indexes SET owner = $1, lease_until = now() + make_interval(secs => $2::float8 / 1000)
           WHERE project_id = (SELECT project_id FROM retrieval.project_indexes
                               WHERE build_status = 'building' AND (lease_until IS NULL OR lease_until < now())
                               ORDER BY started_at LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING *`,
      [this.me, this.config.REINDEX_LEASE_MS],
    );
    return row;
  }

  /** Renews the lease of a rebuild this process holds; false when it is no longer held. */
  async renew(projectId: string, buildKey: string): Promise<boolean> {
    const r = await this.ds.query<[unknown[], number]>(
      `UPDATE retrieval.project_indexes SET lease_until = now() + make_interval(secs => $3::float8 / 1000)
           WHERE project_id = $1 AND build_key = $2 AND owner = $4 AND build_status = 'building' RETURNING project_id`,
      [projectId, buildKey, this.config.REINDEX_LEASE_MS, this.me],
    );
    return r[1] !== 0;
  }

  /** Updates a rebuild this process holds (`sql` numbers its parameters from $4); false when it is no longer held. */
  async update(projectId: string, buildKey: string, sql: string, params: unknown[]): Promise<boolean> {
    const [, n] = await this.ds.query<[unknown[], number]>(
      `UPDATE retrieval.project_indexes SET ${sql} WHERE project_id = $1 AND build_key = $2 AND owner = $3 AND build_status = 'building' RETURNING project_id`,
      [projectId, buildKey, this.me, ...params],
    );
    return n !== 0;
  }

  /** A stamp later than every write noted so far. */
  async stamp(): Promise<string> {
    const [{ stamp }] = await this.ds.query<Array<{ stamp: string }>>(`SELECT nextval('retrieval.build_stamp_seq')::text AS stamp`);
    return stamp;
  }

  /** Writes under way, or begun or ended after `mark`, up to `limit`. */
  async writesSince(buildKey: string, mark: string, limit: number): Promise<BuildWrite[]> {
    return this.ds.query<BuildWrite[]>(
      `SELECT item_id, in_flight, started FROM retrieval.build_writes
           WHERE build_key = $1 AND (in_flight > 0 OR started > $2 OR done > $2) ORDER BY item_id LIMIT $3`,
      [buildKey, mark, limit],
    );
  }

  /** Takes every write under way as ended (left so by a replica that died). */
  async endAllWrites(buildKey: string): Promise<void> {
    await this.ds.query(`UPDATE retrieval.build_writes SET in_flight = 0, done = nextval('retrieval.build_stamp_seq') WHERE build_key = $1 AND in_flight > 0`, [buildKey]);
  }

  /**
   * Makes a complete rebuild the live index and retires the old one, in one transaction, with the project's
   * languages when the rebuild detected them. False when this process no longer holds the rebuild.
   */
  async complete(claimed: IndexRow, languages: Record<string, number> | null): Promise<boolean> {
    const project = claimed.project_id;
    return this.ds.transaction(async (tx) => {
      const [, n] = await tx.query<[unknown[], number]>(
        `UPDATE retrieval.project_indexes SET live_key = build_key, backend = build_backend, analyzer = build_analyzer,
           retired_key = live_key, retired_backend = backend, retired_at = now(),
           build_status = 'completed', build_cursor = NULL, finished_at = now(), owner = NULL, lease_until = NULL,
           chunks_done = GREATEST(chunks_done, chunks_total)
         WHERE project_id = $1 AND build_key = $2 AND owner = $3 AND build_status = 'building' RETURNING project_id`,
        [project, claimed.build_key, this.me],
      );
      if (n === 0) return false;
      if (languages && Object.keys(languages).length) {
        await tx.query('DELETE FROM retrieval.project_languages WHERE project_id = $1', [project]);
        await tx.query(`INSERT INTO retrieval.project_languages (project_id, language, chunks) SELECT $1, unnest($2::varchar[]), unnest($3::bigint[])`, [
          project,
          Object.keys(languages),
          Object.values(languages),
        ]);
      }
      await tx.query('DELETE FROM retrieval.build_writes WHERE build_key = $1', [claimed.build_key]);
      return true;
    });
  }

  /** A project's index and its latest rebuild, as the API shows them. */
  view(projectId: string, row: IndexRow | null): ReindexView {
    return {
      project_id: projectId,
      index: row ? { backend: row.backend, analyzer: row.analyzer } : { backend: this.config.SEARCH_BACKEND, analyzer: ANALYZER_VERSION },
      status: row?.build_status ?? 'none',
      reason: row?.build_reason ?? null,
      target: row?.build_backend ? { backend: row.build_backend, analyzer: row.build_analyzer! } : null,
      chunks_done: Math.min(Number(row?.chunks_done ?? 0), Math.max(Number(row?.chunks_total ?? 0), 0)),
      chunks_total: Number(row?.chunks_total ?? 0),
      started_at: isoMicro(row?.started_at),
      finished_at: isoMicro(row?.finished_at),
      error: row?.error ?? null,
    };
  }
}
