// Over 250 lines: one class, the rebuild runner and the write routing it must see (writes in progress, the live
// index a rebuild replaces).
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ChunkInput, ReindexView, Scope } from '@askdata/contracts';
import { ANALYZER_VERSION, detectLanguage, outsideRequest, RefreshedValues } from '@askdata/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { PostgresIndex } from './postgres-index';
import { IndexRow, ProjectIndexes, RebuildReason } from './project-indexes';
import { ProjectLanguages } from './project-languages';
import { QdrantIndex } from './qdrant-index';
import { REINDEX_SHARED } from './replicas';
import { SearchIndex } from './search-index';

export { REINDEX_SHARED };

/** Where a project's searches and writes go. */
export interface IndexTarget {
  index: SearchIndex;
  key: string;
}

/**
 * How long a search reuses what it read of a project's index, and how old that may be while it is read again in the
 * background: a retired index is kept far longer than a read takes.
 */
const LIVE_KEPT_MS = 1000;
const LIVE_USABLE_MS = 5000;
/** Analysis before this version knew English only: a rebuild from it detects each item's language. */
const LANGUAGES_VERSION = 2;

/**
 * A project's index and its rebuilds. Every project's index is stored under a key, in a backend, written by an
 * analyzer version (`retrieval.project_indexes`). A rebuild writes a new index under a new key, in the configured
 * backend with the current analyzer, from what the live index stores (its chunks, their items' titles and fields),
 * while searches keep reading the live index; then it replaces the live index in one update, and the old one is
 * removed once no search can still be reading it. Writes to the project meanwhile go to both indexes and are
 * noted (`retrieval.build_writes`); once the copy is done, the items written since it started are copied again
 * from the live index, round after round, until a round finds none written (or being written) meanwhile.
 *
 * Rebuilds start by themselves for every project whose index was written by another analyzer version or lives in
 * another backend than `SEARCH_BACKEND`, and on request (`POST /admin/projects/{id}/reindex`). Each replica runs one
 * rebuild at a time, claimed with a lease renewed as it goes, so a rebuild whose replica dies is taken over.
 * The statements on the index state and its lease are in project-indexes.ts.
 */
@Injectable()
export class IndexRebuilds implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IndexRebuilds');
  private readonly live = new RefreshedValues<IndexTarget>(LIVE_KEPT_MS, LIVE_USABLE_MS);
  /** Writes of this process in progress, by project: a rebuild waits for those that began before it. */
  private readonly writing = new Map<string, Set<Promise<unknown>>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly indexes: ProjectIndexes,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
    private readonly postgres: PostgresIndex,
    private readonly qdrant: QdrantIndex,
    private readonly languages: ProjectLanguages,
    @Inject(REINDEX_SHARED) private readonly shared: boolean,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.REINDEX_POLL_MS === 0) return;
    this.timer = setInterval(() => this.kick(), this.config.REINDEX_POLL_MS);
    this.timer.unref();
  }

  /** The rebuild in hand stops at its next step, and its lease is let go, so another replica takes it over at once. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.indexes.releaseLeases().catch(() => undefined);
  }

  backend(name: string): SearchIndex {
    return name === 'qdrant' ? this.qdrant : this.postgres;
  }

  /** The index a project's searches read. */
  async searchTarget(projectId: string): Promise<IndexTarget> {
    return this.live.get(projectId, () =>
      this.indexes
        .row(projectId)
        .then((row) => (row ? { index: this.backend(row.backend), key: row.live_key } : { index: this.backend(this.config.SEARCH_BACKEND), key: projectId })),
    );
  }

  /**
   * Writes items to a project's index: to the live one, and to the one being built if a rebuild is under way (a failure
   * there is left to the rebuild, which copies the item again). Returns the chunks written.
   */
  async write(scope: Scope, items: ChunkInput[]): Promise<number> {
    const project = scope.projectId;
    let writes = this.writing.get(project);
    if (!writes) this.writing.set(project, (writes = new Set()));
    const done = this.writeNow(scope, items);
    writes.add(done);
    try {
      return await done;
    } finally {
      writes.delete(done);
      if (writes.size === 0) this.writing.delete(project);
    }
  }

  private async writeNow(scope: Scope, items: ChunkInput[]): Promise<number> {
    const row = await this.indexes.rowForWrite(scope.projectId);
    const live = this.backend(row.backend);
    if (row.build_status !== 'building' || !row.build_key || !row.build_backend) {
      await this.languages.record(scope.projectId, items);
      return live.replace({ ...scope, projectId: row.live_key }, items);
    }
    const buildKey = row.build_key;
    const ids = [...new Set(items.map((i) => i.itemId))];
    await this.indexes.noteWrites(buildKey, ids);
    try {
      await this.languages.record(scope.projectId, items);
      const written = await live.replace({ ...scope, projectId: row.live_key }, items);
      try {
        await this.backend(row.build_backend).replace({ ...scope, projectId: buildKey }, items);
      } catch (e) {
        this.logger.warn(`writing to the index being built for project ${scope.projectId} failed (its rebuild copies the items again): ${(e as Error).message}`);
      }
      return written;
    } finally {
      await this.indexes.endWrites(buildKey, ids);
    }
  }

  /** Starts a rebuild of a project's index (none is started while one is under way). */
  async start(projectId: string, reason: RebuildReason): Promise<ReindexView> {
    await this.indexes.rowForWrite(projectId);
    const started = await this.indexes.start(projectId, reason);
    if (started) {
      this.logger.log(
        `rebuilding the index of project ${projectId} (${reason}): ${started.backend} analyzer ${started.analyzer} -> ${this.config.SEARCH_BACKEND} analyzer ${ANALYZER_VERSION}`,
      );
      this.kick();
    }
    return this.indexes.view(projectId, started ?? (await this.indexes.row(projectId)));
  }

  /** A project's index and its latest rebuild. */
  async status(projectId: string): Promise<ReindexView> {
    return this.indexes.view(projectId, await this.indexes.row(projectId));
  }

  /** Runs the rebuilds due now: removes retired indexes, starts those the configuration calls for, and builds one. */
  async tick(): Promise<void> {
    try {
      await this.sweepRetired();
      await this.startDue();
      for (;;) {
        if (this.stopped) return;
        const row = await this.indexes.claim();
        if (!row) return;
        await this.build(row);
      }
    } catch (e) {
      this.logger.warn(`index rebuilds: ${(e as Error).message}`);
    }
  }

  private kick(): void {
    if (this.config.REINDEX_POLL_MS === 0 || this.stopped) return;
    // Started by a request too (a rebuild asked for): the work is the service's own, past the request's deadline.
    this.ticking ??= outsideRequest(() => this.tick()).finally(() => (this.ticking = null));
  }

  /**
   * Starts a rebuild of every project whose index another analyzer version wrote (unless its terms would not change),
   * or that lives in the other backend.
   */
  private async startDue(): Promise<void> {
    const kept = await this.indexes.keepUnchanged();
    if (kept.length) this.logger.log(`kept the index of ${kept.length} project(s) of English chunks only as analyzer ${ANALYZER_VERSION}'s: its terms are the same`);
    const due = await this.indexes.due();
    for (const d of due) await this.start(d.project_id, d.backend !== this.config.SEARCH_BACKEND ? 'backend' : 'analyzer');
  }

  /** Removes indexes replaced longer than REINDEX_RETIRE_MS ago: no search or write still reads or writes them. */
  private async sweepRetired(): Promise<void> {
    const retired = await this.indexes.retired();
    for (const r of retired) {
      await this.backend(r.retired_backend).drop(r.retired_key);
      await this.indexes.forgetRetired(r.project_id, r.retired_key);
      this.logger.log(`removed the replaced index of project ${r.project_id}`);
    }
  }

  /** Builds a claimed rebuild to the end (or until its lease is lost), then makes it the live index. */
  private async build(claimed: IndexRow): Promise<void> {
    const project = claimed.project_id;
    const key = claimed.build_key!;
    const source = this.backend(claimed.backend);
    const target = this.backend(claimed.build_backend!);
    let lost = false;
    const renew = setInterval(
      () => {
        void this.indexes
          .renew(project, key)
          .then((held) => {
            if (!held) lost = true;
          })
          .catch(() => undefined);
      },
      Math.max(100, Math.floor(this.config.REINDEX_LEASE_MS / 3)),
    );
    const fenced = async (sql: string, params: unknown[]): Promise<void> => {
      if (!(await this.indexes.update(project, key, sql, params))) lost = true;
    };
    const detect = claimed.analyzer < LANGUAGES_VERSION;
    try {
      let { build_cursor: cursor } = claimed;
      const languages = { ...claimed.build_languages };
      if (!claimed.build_copied) {
        if (cursor === null) {
          await this.settle(project, claimed.started_at);
          await fenced('chunks_total = $4', [await source.count(claimed.live_key)]);
        }
        while (!lost && !this.stopped) {
          const page = await source.scan(claimed.live_key, cursor, this.config.REINDEX_BATCH_ITEMS);
          const items = detect ? await withLanguages(page.items) : page.items;
          const written = await target.replace({ projectId: key, tenancy: 'single' }, items);
          for (const item of items) if (item.chunks.length) languages[item.language ?? 'en'] = (languages[item.language ?? 'en'] ?? 0) + item.chunks.length;
          cursor = page.next;
          await fenced(`build_cursor = $4, chunks_done = chunks_done + $5, build_languages = $6::jsonb${cursor === null ? ', build_copied = true' : ''}`, [
            cursor,
            written,
            JSON.stringify(languages),
          ]);
          if (cursor === null) break;
        }
      }
      let mark = claimed.build_mark;
      let waitingSince: number | null = null;
      while (!lost && !this.stopped) {
        const stamp = await this.indexes.stamp();
        const written = await this.indexes.writesSince(key, mark, this.config.REINDEX_BATCH_ITEMS);
        if (written.length === 0) {
          await this.finish(claimed, languages, detect);
          return;
        }
        if (written.some((w) => w.in_flight > 0)) {
          // Writes under way: their items are copied once they end. Writes still unfinished after the longest a write
          // may take were left so by a replica that died, and are taken as ended.
          waitingSince ??= Date.now();
          if (Date.now() - waitingSince > this.config.BUS_TIMEOUT_MS * 2) {
            await this.indexes.endAllWrites(key);
          }
          await sleep(100);
          continue;
        }
        waitingSince = null;
        const items = await source.read(
          claimed.live_key,
          written.map((w) => w.item_id),
        );
        await target.replace({ projectId: key, tenancy: 'single' }, detect ? await withLanguages(items) : items);
        // The next round looks at writes since this one's stamp, unless this round saw only part of them.
        if (written.length < this.config.REINDEX_BATCH_ITEMS) mark = stamp;
        else mark = written.reduce((m, w) => (BigInt(w.started) < BigInt(m) ? w.started : m), stamp);
      }
    } catch (e) {
      const message = (e as Error).message;
      this.logger.error(`rebuilding the index of project ${project} failed: ${message}`);
      await fenced(`build_status = 'failed', error = $4, finished_at = now(), owner = NULL, lease_until = NULL`, [message.slice(0, 2000)]).catch(() => undefined);
      if (!lost) await target.drop(key).catch(() => undefined);
    } finally {
      clearInterval(renew);
    }
  }

  /**
   * Before copying, every write that began before the rebuild (and so writes to the live index only) must have
   * ended: those of this process are awaited; in distributed mode, writes of other replicas end within their
   * deadline, which REINDEX_SETTLE_MS covers.
   */
  private async settle(project: string, startedAt: Date | null): Promise<void> {
    await Promise.allSettled([...(this.writing.get(project) ?? [])]);
    if (!this.shared) return;
    const left = this.config.REINDEX_SETTLE_MS - (Date.now() - (startedAt?.getTime() ?? 0));
    if (left > 0) await sleep(left);
  }

  /** The copy is complete: it becomes the live index, and the old one is retired. */
  private async finish(claimed: IndexRow, languages: Record<string, number>, detected: boolean): Promise<void> {
    const project = claimed.project_id;
    const previous = await this.indexes.row(project);
    if (previous?.retired_key) await this.backend(previous.retired_backend!).drop(previous.retired_key);
    const done = await this.indexes.complete(claimed, detected ? languages : null);
    if (!done) return;
    this.live.delete(project);
    this.logger.log(`the rebuilt index of project ${project} is live (${claimed.build_backend}, analyzer ${claimed.build_analyzer})`);
  }
}

/** Items stored before languages were kept were all analyzed as English: each is given the language its text is in. */
async function withLanguages(items: ChunkInput[]): Promise<ChunkInput[]> {
  return Promise.all(items.map(async (item) => ({ ...item, language: (await detectLanguage([item.title, ...item.chunks].join('\n'))) ?? item.language ?? 'en' })));
}
