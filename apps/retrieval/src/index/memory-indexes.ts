import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Announcements, inBackground, outsideRequest, preparedRows, TimeSlices } from '@askdata/common';
import { DataSource, EntityManager } from 'typeorm';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { retrievalMetrics } from '../retrieval.metrics';
import { INDEX_VERSIONS_URL, REINDEX_SHARED } from './replicas';
import { PackedChunks } from './batch-preparation';
import { MemoryChunk, MemoryHit, MemoryPostings, MemorySearch, PackedChunk } from './memory-postings';
import { forwardOf } from './forward-entries';
import { Metadata } from './filters';

/** Where new versions of indexes are announced (migration `IndexVersionNotices`). */
const VERSIONS_CHANNEL = 'askdata_retrieval_versions';
/** Writes of an index kept in `index_changes`: a replica further behind loads the index again. */
export const INDEX_CHANGES_KEPT = 1000;
/** Writes a search catches up with before answering; further behind, it is answered in SQL while memory catches up. */
const CATCH_UP_IN_SEARCH = 20;
/** Items changed since the memory's version beyond which the key is loaded again rather than caught up with. */
const RELOAD_ITEMS = 20_000;
/** How long applying a write holds the event loop at a time. */
const APPLY_SLICE_MS = 5;
/** Items a load reads at a time. */
const LOAD_ITEMS = 500;
/** How long a key that did not fit (or failed to load) is left to SQL before it is tried again. */
const RETRY_MS = 10 * 60_000;

interface Held {
  postings: MemoryPostings;
  /** The index's version the postings hold (`retrieval.stats.version`). */
  version: number;
  loading: boolean;
  /** A catch-up in progress: writes are then not applied here, it reads them. */
  catching: Promise<boolean> | null;
  /** The writes of this process being applied, one after another, and the version they bring the memory to (0: none). */
  applying: Promise<void> | null;
  applyingTo: number;
  /** Catching up with many writes in the background. */
  behind: boolean;
  used: number;
  /** The latest version announced for the key since it was held (`IndexVersionNotices`). */
  heard: number;
  /** The announcements' `generation` in which the key's version was read from the database; -1 before. */
  checked: number;
}

const CHUNK_COLUMNS = 'id::text AS id, item_id, collection, tenant, length, forward, terms, metadata';

/** Items' chunks for memory (none: the item is removed), and each item's metadata (none: `{}`). */
interface ItemChunks {
  chunks: Map<string, Array<MemoryChunk | PackedChunk>>;
  metadata: Map<string, Metadata>;
}

/** The chunks of a prepared batch as a memory index takes them, by item: each of `itemIds`, none when it has none. */
export function packedByItem(itemIds: readonly string[], packed: PackedChunks | undefined): Map<string, PackedChunk[]> {
  const items = new Map<string, PackedChunk[]>(itemIds.map((id) => [id, []]));
  let from = 0;
  packed?.ids.forEach((id, c) => {
    const names = packed.terms[c] ? packed.terms[c].split('\u0000') : [];
    const item_id = packed.items[c];
    items.get(item_id)?.push({ id, item_id, collection: packed.collections[c], tenant: packed.tenants[c], length: packed.lengths[c], names, entries: packed.entries, from });
    from += names.length;
  });
  return items;
}

/**
 * The PostgreSQL backend's indexes in memory, per key, within SEARCH_MEMORY_MB (the least recently searched are let
 * go first): a search is scored here instead of in SQL once its key is loaded, with the same BM25 over the same chunks,
 * exhaustively. The database stays the truth. A key is loaded in the background on its first search (answered in SQL
 * meanwhile) from its chunks' forward indexes; every write gives the index a new version and records the items it
 * changed (`index_changes`), and a search first brings the memory up to the index's current version by re-reading
 * those items, so replicas agree with each other and with deletes. Standalone, where this process is the only writer,
 * its own writes are applied as they commit and no version is asked for. Distributed, every write's new version is
 * announced to every replica as it commits (a trigger on `retrieval.stats`, whichever release wrote it), and the writer
 * answers once every live listening replica has heard it (at most a second: `Announcements`): a replica that hears
 * them all asks the database for a key's version once, not every search. One that is not listening, or whose
 * heartbeat is late (connecting, its connection lost, its event loop stalled: versions may be waiting unread), asks
 * every search, as before. A replica of the release before announces through the trigger but does not wait.
 */
@Injectable()
export class MemoryIndexes implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(MemoryIndexes.name);
  private readonly held = new Map<string, Held>();
  /** Not shared: the latest version each key's writes committed here. */
  private readonly written = new Map<string, number>();
  private readonly refused = new Map<string, number>();
  private readonly budget: number;
  /** New versions of indexes as they commit, from every replica (distributed); null: asked for in each search. */
  private readonly versions: Announcements | null;
  /** Increases whenever listening starts or stops: versions read from the database before are read again. */
  private generation = 0;
  /** The database server's run, as read when listening last started or stopped (`serverRun`; null: not yet read). */
  private serverRunSeen: string | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) config: Pick<RetrievalConfig, 'SEARCH_MEMORY_MB'>,
    @Inject(REINDEX_SHARED) private readonly shared: boolean,
    @Optional() @Inject(INDEX_VERSIONS_URL) url: string | null = null,
  ) {
    this.budget = config.SEARCH_MEMORY_MB * 1024 * 1024;
    this.versions =
      shared && url && this.budget
        ? new Announcements({
            url,
            channel: VERSIONS_CHANNEL,
            listener: 'askdata-retrieval-versions',
            what: 'index version',
            heard: (payload) => this.heard(payload),
            reset: () => this.listeningChanged(),
          })
        : null;
  }

  onApplicationBootstrap(): void {
    this.versions?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.versions?.stop();
  }

  /**
   * Inside the transaction of a write that made `version` of the key (with `dropped`, that dropped the key at that
   * version): what `settled` waits for, so that the writer answers once every listening replica has heard of it.
   */
  async announced(tx: EntityManager, key: string, version: string, dropped = false): Promise<string | null> {
    return this.versions ? this.versions.expect(tx, `${key} ${version}${dropped ? ' dropped' : ''}`) : null;
  }

  /** After the commit of a write `announced`: waits (at most a second) until every listening replica has heard it. */
  async settled(announcement: string | null): Promise<void> {
    if (announcement) await this.versions?.settled(announcement);
  }

  /**
   * Listening started or stopped: versions may have been missed, so they are read from the database again. If the
   * server is another one, or started again or recovered from a crash meanwhile, everything held is let go and loaded
   * again: writes this memory applied may be gone (a failover to a standby they had not reached yet; a crash, where
   * commits do not wait for the flush), and the versions they took are taken again by the next writes, so memory that
   * applied them could not tell it is wrong.
   */
  private listeningChanged(): void {
    this.generation++;
    this.serverRun().then(
      (run) => {
        if (this.serverRunSeen !== null && run !== this.serverRunSeen && this.held.size) {
          this.log.warn(`The database server is another one, or started again: the ${this.held.size} indexes held in memory are loaded again`);
          this.held.clear();
          retrievalMetrics.memoryBytes.set(0);
        }
        this.serverRunSeen = run;
      },
      // Unreachable: read when listening starts again.
      () => undefined,
    );
  }

  /**
   * When the server started, and since when it has kept its WAL statistics: recovery from a crash (of a server process:
   * the server itself goes on) discards them, which a clean restart does not; another server differs in both.
   */
  private async serverRun(): Promise<string> {
    const [row] = await this.ds.query<Array<{ run: string }>>(`SELECT pg_postmaster_start_time()::text || ' ' || COALESCE((SELECT stats_reset::text FROM pg_stat_wal), '') AS run`);
    return row.run;
  }

  /** A version announced: `<key> <version>`, or `<key> <version> dropped`. */
  private heard(payload: string): void {
    const [key, version, dropped] = payload.split(' ');
    if (dropped) return this.dropped(key);
    const held = this.held.get(key);
    if (held) held.heard = Math.max(held.heard, Number(version));
  }

  /** The version a search must see: the latest heard, once read from the database; read every search when not trusted. */
  private async target(key: string, held: Held): Promise<number | null> {
    const trusted = this.versions?.trusted() ?? false;
    if (trusted && held.checked === this.generation) return held.heard;
    const generation = this.generation;
    const version = await this.version(key);
    if (version === null) return null;
    held.heard = Math.max(held.heard, version);
    if (trusted && generation === this.generation) held.checked = generation;
    return held.heard;
  }

  /** The best items from memory, or null when the key is not held (or not up to date): the caller searches in SQL. */
  async search(key: string, query: MemorySearch): Promise<MemoryHit[] | null> {
    if (!this.budget) return null;
    const held = this.held.get(key);
    if (!held) {
      this.load(key);
      return null;
    }
    // Loading, or far behind and catching up in the background: SQL answers meanwhile.
    if (held.loading || held.behind) return null;
    held.used = Date.now();
    const target = this.shared ? await this.target(key, held) : Math.max(held.version, this.written.get(key) ?? 0);
    if (target === null) {
      // Dropped (by another replica): nothing to search.
      this.held.delete(key);
      return [];
    }
    // Versions only grow: memory ahead of the version read (a write applied here meanwhile) is current enough.
    if (target > held.version && held.applyingTo < target && !(await this.catchUp(key, held, target, CATCH_UP_IN_SEARCH))) return null;
    return held.postings.search(query);
  }

  /**
   * A write to the key committed, as version `version` after `previous`, replacing `itemIds` by the chunks it wrote
   * (with the items' `metadata`): applied to the memory held in slices (searches meanwhile see the batch as far as it
   * got), after the writes committed before it that are still being applied, resolved once applied.
   */
  async committed(key: string, previous: number, version: number, itemIds: string[], packed: PackedChunks | undefined, metadata: Map<string, Metadata>): Promise<void> {
    if (!this.shared) this.written.set(key, Math.max(version, this.written.get(key) ?? 0));
    const held = this.held.get(key);
    if (!held || held.loading || held.catching) return;
    // The next write of the memory, or of the writes queued: another (committed out of turn) is left to a catch-up.
    if ((held.applying ? held.applyingTo : held.version) !== previous) return;
    held.applyingTo = version;
    const run = async () => {
      if (this.held.get(key) !== held || held.version !== previous) return;
      try {
        await this.apply(key, held, itemIds, packed, metadata);
      } catch (e) {
        // Half applied: the memory is loaded again (SQL answers meanwhile), and the writes queued behind are skipped.
        this.log.warn(`Applying a write to index ${key} in memory failed (${e instanceof Error ? e.message : String(e)}): it is loaded again`);
        this.reload(key, held);
        return;
      }
      if (held.version === previous) held.version = version;
    };
    const applying = (held.applying ?? Promise.resolve()).then(run, run);
    held.applying = applying;
    try {
      await applying;
    } finally {
      if (held.applying === applying) {
        held.applying = null;
        held.applyingTo = 0;
      }
    }
    this.fit(key);
  }

  private async apply(key: string, held: Held, itemIds: string[], packed: PackedChunks | undefined, metadata: Map<string, Metadata>): Promise<void> {
    const items = packedByItem(itemIds, packed);
    await this.replaceItems(key, held, items.keys(), { chunks: items, metadata });
  }

  /** The key's index was removed. */
  dropped(key: string): void {
    this.held.delete(key);
    this.written.delete(key);
    retrievalMetrics.memoryBytes.set(this.bytes());
  }

  /** Bytes held, about. */
  private bytes(): number {
    let bytes = 0;
    for (const h of this.held.values()) bytes += h.postings.bytes;
    return bytes;
  }

  /** Whether versions are heard as they commit (tests). */
  listening(): boolean {
    return this.versions?.trusted() ?? false;
  }

  /** Whether the key is loaded (tests). */
  holds(key: string): boolean {
    const held = this.held.get(key);
    return Boolean(held && !held.loading);
  }

  private async version(key: string): Promise<number | null> {
    const [row] = await preparedRows<{ version: string }>(this.ds, 'SELECT version FROM retrieval.stats WHERE project_id = $1', [key]);
    return row ? Number(row.version) : null;
  }

  /** Loads the key in the background, outside the request that asked and behind reads. */
  private load(key: string): void {
    const refused = this.refused.get(key);
    if (refused !== undefined && refused > Date.now()) return;
    this.refused.delete(key);
    const held: Held = {
      postings: new MemoryPostings(),
      version: 0,
      loading: true,
      catching: null,
      applying: null,
      applyingTo: 0,
      behind: false,
      used: Date.now(),
      heard: 0,
      checked: -1,
    };
    this.held.set(key, held);
    const fail = (why: string) => {
      if (this.held.get(key) === held) this.held.delete(key);
      this.refused.set(key, Date.now() + RETRY_MS);
      this.log.warn(`Index ${key} is searched in SQL for now: ${why}`);
    };
    outsideRequest(() => inBackground(() => this.read(key, held)))
      .then((loaded) => {
        if (!loaded) fail(`it does not fit in SEARCH_MEMORY_MB (${this.budget / 1024 / 1024} MB)`);
      })
      .catch((e: unknown) => fail(`loading it failed (${e instanceof Error ? e.message : String(e)})`));
  }

  /** Reads the key's chunks item by item; false when they do not fit. Later writes are caught up with by searches. */
  private async read(key: string, held: Held): Promise<boolean> {
    const version = await this.version(key);
    let cursor = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await this.ds.query<StoredChunk[]>(
        `SELECT ${CHUNK_COLUMNS} FROM retrieval.chunks WHERE project_id = $1 AND item_id IN (
           SELECT DISTINCT item_id FROM retrieval.chunks WHERE project_id = $1 AND item_id > $2 ORDER BY item_id LIMIT $3)`,
        [key, cursor, LOAD_ITEMS],
      );
      const items = byItem(rows);
      if (!(await this.replaceItems(key, held, [...items.chunks.keys()], items))) return true;
      for (const itemId of items.chunks.keys()) if (itemId > cursor) cursor = itemId;
      if (!this.fit(key)) return false;
      if (items.chunks.size < LOAD_ITEMS) break;
    }
    held.postings.trim();
    held.version = version ?? 0;
    held.loading = false;
    return true;
  }

  /**
   * Brings the key's memory to `target` by re-reading the items of the writes since its version, at most `most` writes
   * here (further behind: false, and it goes on in the background). False too when the writes are no longer all
   * recorded: the key is loaded again.
   */
  private catchUp(key: string, held: Held, target: number, most: number): Promise<boolean> {
    // After a write being applied here, which the changes read would otherwise race.
    held.catching ??= Promise.resolve(held.applying)
      .then(() => this.readChanges(key, held, target, most))
      .finally(() => (held.catching = null));
    return held.catching.then((done) => done && held.version >= target);
  }

  private async readChanges(key: string, held: Held, target: number, most: number): Promise<boolean> {
    const changes = await this.ds.query<Array<{ version: string; previous: string; item_ids: string[] }>>(
      'SELECT version, previous, item_ids FROM retrieval.index_changes WHERE project_id = $1 AND version > $2 AND version <= $3 ORDER BY version LIMIT $4',
      [key, held.version, target, most + 1],
    );
    let previous = held.version;
    for (const c of changes) {
      if (Number(c.previous) !== previous) return this.reload(key, held);
      previous = Number(c.version);
    }
    if (!changes.length || (changes.length <= most && previous !== target)) return this.reload(key, held);
    if (changes.length > most) {
      if (most >= INDEX_CHANGES_KEPT) return this.reload(key, held);
      // Far behind: this search goes to SQL; the rest is read in the background once this read has ended.
      held.behind = true;
      setImmediate(
        () =>
          void outsideRequest(() => inBackground(() => this.catchUp(key, held, target, INDEX_CHANGES_KEPT)))
            .catch(() => undefined)
            .finally(() => (held.behind = false)),
      );
      return false;
    }
    const ids = [...new Set(changes.flatMap((c) => c.item_ids))];
    if (ids.length > Math.max(RELOAD_ITEMS, held.postings.chunks / 2)) return this.reload(key, held);
    const rows = await this.ds.query<StoredChunk[]>(`SELECT ${CHUNK_COLUMNS} FROM retrieval.chunks WHERE project_id = $1 AND item_id = ANY($2::uuid[])`, [key, ids]);
    if (!(await this.replaceItems(key, held, ids, byItem(rows)))) return false;
    held.version = previous;
    this.fit(key);
    return true;
  }

  /** Puts the items' chunks (none: removed) in the memory held, in slices; false when it was let go meanwhile. */
  private async replaceItems(key: string, held: Held, ids: Iterable<string>, { chunks, metadata }: ItemChunks): Promise<boolean> {
    const slices = new TimeSlices(APPLY_SLICE_MS);
    for (const id of ids) {
      if (slices.due()) await slices.next();
      if (this.held.get(key) !== held) return false;
      held.postings.replaceItem(id, chunks.get(id) ?? [], metadata.get(id));
    }
    return this.held.get(key) === held;
  }

  /** Loads the key again, unless the memory that found itself out of date was let go meanwhile. */
  private reload(key: string, held: Held): false {
    if (this.held.get(key) !== held) return false;
    this.held.delete(key);
    this.load(key);
    return false;
  }

  /** Lets go of the least recently searched other keys while the total is over budget; false if `key` alone is. */
  private fit(key: string): boolean {
    let bytes = this.bytes();
    if (bytes > this.budget) {
      const others = [...this.held].filter(([k]) => k !== key).sort(([, a], [, b]) => a.used - b.used);
      for (const [k, h] of others) {
        if (bytes <= this.budget) break;
        this.held.delete(k);
        bytes -= h.postings.bytes;
      }
    }
    const fits = bytes <= this.budget;
    if (!fits) this.held.delete(key);
    retrievalMetrics.memoryBytes.set(fits ? bytes : this.bytes());
    return fits;
  }
}

/** A chunk row as read for memory: its forward index packed (`forward`), or as jsonb in rows written before. */
type StoredChunk = Omit<MemoryChunk, 'terms'> & { forward: Buffer | null; terms: Record<string, number> | null; metadata: Metadata };

/** Rows grouped by item, each with its forward index read (`forwardOf`); an item's metadata is its chunks'. */
function byItem(rows: StoredChunk[]): ItemChunks {
  const items: ItemChunks = { chunks: new Map(), metadata: new Map() };
  for (const { forward, terms, metadata, ...r } of rows) {
    const chunk = { ...r, ...forwardOf({ forward, terms }), from: 0 };
    const list = items.chunks.get(r.item_id);
    if (list) list.push(chunk);
    else {
      items.chunks.set(r.item_id, [chunk]);
      items.metadata.set(r.item_id, metadata);
    }
  }
  return items;
}
