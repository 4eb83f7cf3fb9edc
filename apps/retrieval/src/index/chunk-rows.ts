import { Logger } from '@nestjs/common';
import { inBackground, outsideRequest, preparedRows, TimeSlices, unpackText } from '@askdata/common';
import { ChunkInput } from '@askdata/contracts';
import { DataSource } from 'typeorm';
import { cut, Pieces, piecesBytes } from '../analysis/snippet';
import { retrievalMetrics } from '../retrieval.metrics';
import { ChunkFields, chunkFields } from './batch-preparation';

/** A chunk's fields as a hit shows them, with its number and index key. */
export type ChunkRow = ChunkFields & { id: string; project_id: string };

const COLUMNS = 'id::text AS id, project_id, item_id, client_item_id, collection, tenant, url, metadata, text, packed, language, n';
/** Rows a read ahead asks for at a time. */
const AHEAD_ROWS = 1000;
/** Keys read ahead are remembered (so each is read once) up to this many. */
const KEYS_REMEMBERED = 10_000;

/** A chunk row as read: its text in `packed` (`packText`) and `text` null, or, written before texts were packed, in `text`. */
export type Packed<T extends { text: string }> = Omit<T, 'text'> & { text: string | null; packed: Buffer | null };

/** The rows with their texts, unpacked in place where they were packed (their bytes let go). */
export function unpacked<T extends { text: string }>(rows: Array<Packed<T>>): T[] {
  for (const row of rows) {
    if (row.text === null) row.text = unpackText(row.packed!);
    row.packed = null;
  }
  return rows as unknown as T[];
}

/** What a row takes in memory, roughly: its strings (one byte a character, two beyond Latin-1) and its object. */
export function rowBytes(row: ChunkRow): number {
  const chars = (s: string | null | undefined) => (s ? s.length * (/[\u0100-\uffff]/.test(s) ? 2 : 1) : 0);
  return 300 + chars(row.text) + chars(row.url) + chars(row.client_item_id) + chars(row.collection) + chars(JSON.stringify(row.metadata ?? null));
}

/**
 * The rows a batch of `items` wrote under `key`, as the database gives them back: chunk by chunk in the order the
 * batch numbered them (`ids`), metadata with its members in jsonb's order.
 */
export function writtenRows(key: string, items: ChunkInput[], ids: string[]): ChunkRow[] {
  const rows: ChunkRow[] = [];
  for (const item of items) {
    // Written as `COALESCE(metadata, '{}')`.
    const metadata = jsonbOrdered(item.metadata ?? {}) as Record<string, unknown>;
    item.chunks.forEach((text, n) => rows.push({ ...chunkFields(item, text, n), metadata, id: ids[rows.length], project_id: key }));
  }
  if (rows.length !== ids.length) throw new Error(`${ids.length} chunk numbers for ${rows.length} chunks`);
  return rows;
}

/** A JSON value as jsonb gives it back: object members ordered by their names' length in bytes, then their bytes. */
export function jsonbOrdered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrdered);
  if (value === null || typeof value !== 'object') return value;
  const names = Object.keys(value).map((name) => ({ name, bytes: Buffer.from(name) }));
  names.sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes));
  const ordered: Record<string, unknown> = {};
  // Defined, not assigned: a member named `__proto__` is a member, as JSON.parse makes it.
  for (const { name } of names)
    Object.defineProperty(ordered, name, { value: jsonbOrdered((value as Record<string, unknown>)[name]), enumerable: true, writable: true, configurable: true });
  return ordered;
}

/**
 * The rows of the chunks searches found, by number, the most recently found kept with their snippets' pieces, within
 * a budget of bytes (`SEARCH_ROWS_MB`). A chunk's number is never given to another chunk (a replaced chunk is a new
 * one, `chunkNumber`), so a row read once stays true for as long as the chunk exists, and the memory index names only
 * chunks that exist: a popular answer is shown without a statement, which standalone's single database session would
 * make wait behind an index write, and its text is not analysed again. An index's rows are read ahead on its first
 * search, up to half the budget: one whose rows and pieces fit is read whole, so its searches run no statement and
 * analyse no text, and the rows this process writes to it afterwards are kept as they commit (`written`), for as long
 * as that holds.
 */
export class ChunkRows {
  private readonly log = new Logger(ChunkRows.name);
  private readonly kept = new Map<string, { row: ChunkRow; bytes: number; pieces?: Pieces }>();
  private bytes = 0;
  /**
   * Keys read ahead, each once: being read, read whole (and none of its rows let go since), or not whole. The rows
   * this process writes to one being read or read whole are kept as they commit, while they take at most half the
   * budget.
   */
  private readonly ahead = new Map<string, 'reading' | 'whole' | 'partial'>();
  /** Bytes kept per key. */
  private readonly keyBytes = new Map<string, number>();
  /** Per key, how many times it was let go (`forget`): rows read before are not kept after. */
  private readonly forgotten = new Map<string, number>();

  constructor(
    private readonly ds: DataSource,
    private readonly budget: number,
  ) {}

  /** The rows of the chunks numbered `ids` under `key` (one removed meanwhile is missing). */
  async read(key: string, ids: string[]): Promise<Map<string, ChunkRow>> {
    const found = new Map<string, ChunkRow>();
    const missing: string[] = [];
    for (const id of ids) {
      const kept = this.kept.get(id);
      if (kept?.row.project_id !== key) {
        missing.push(id);
        continue;
      }
      // Most recently found last, so the first is the next to go.
      this.kept.delete(id);
      this.kept.set(id, kept);
      found.set(id, kept.row);
    }
    if (!missing.length) return found;
    const epoch = this.forgotten.get(key);
    const rows = unpacked(
      await preparedRows<Packed<ChunkRow>>(this.ds, `SELECT ${COLUMNS} FROM retrieval.chunks WHERE project_id = $1 AND id = ANY($2::bigint[])`, [key, missing]),
    );
    for (const row of rows) {
      found.set(row.id, row);
      if (this.forgotten.get(key) === epoch) this.keep(row, rowBytes(row));
    }
    return found;
  }

  /** The pieces of a row's text for its snippets: kept with the row while it is kept. */
  pieces(row: ChunkRow): Pieces {
    const kept = this.kept.get(row.id);
    if (kept?.row !== row) return cut(row.text, row.language);
    if (!kept.pieces) {
      kept.pieces = cut(row.text, row.language);
      this.grow(kept, piecesBytes(kept.pieces));
    }
    return kept.pieces;
  }

  /**
   * Reads the rows of `key`'s index ahead, in the background and behind reads, once (again after a failure or a
   * drop): all of them when they take at most half the budget, else as many as do (the rest are kept as searches
   * find them), so that an index just too big for it still finds most of its hits here. Rows read ahead are let go
   * like any others when the budget needs room.
   */
  readAhead(key: string): Promise<void> {
    if (this.ahead.has(key) || this.budget <= 0) return Promise.resolve();
    if (this.ahead.size >= KEYS_REMEMBERED) this.ahead.clear();
    this.ahead.set(key, 'reading');
    const epoch = this.forgotten.get(key);
    // What the read ended as, unless the key was let go (or found not whole) meanwhile.
    const ended = (state: 'whole' | 'partial' | null) => {
      if (this.ahead.get(key) !== 'reading' || this.forgotten.get(key) !== epoch) return;
      if (state) this.ahead.set(key, state);
      else this.ahead.delete(key);
    };
    return outsideRequest(() => inBackground(() => this.readAll(key))).then(
      (whole) => {
        ended(whole ? 'whole' : 'partial');
        retrievalMetrics.rowsReadAhead.inc({ outcome: whole ? 'whole' : 'too_big' });
      },
      (e: unknown) => {
        ended(null);
        retrievalMetrics.rowsReadAhead.inc({ outcome: 'failed' });
        this.log.warn(`Reading the rows of index ${key} ahead failed: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  }

  /** Whether rows written to `key` are kept (`written`): its rows are being read ahead, or were read ahead whole. */
  keepsWrites(key: string): boolean {
    const state = this.ahead.get(key);
    return state === 'reading' || state === 'whole';
  }

  /**
   * Rows of `key` this process has just committed: kept while the key's rows were read whole and still take at most
   * half the budget (beyond, they are read as searches find them, and no more are kept as written).
   */
  written(key: string, rows: ChunkRow[]): void {
    if (!this.keepsWrites(key)) return;
    const sizes = rows.map(rowBytes);
    if ((this.keyBytes.get(key) ?? 0) + sizes.reduce((a, b) => a + b, 0) > this.budget / 2) {
      this.ahead.set(key, 'partial');
      return;
    }
    rows.forEach((row, i) => this.keep(row, sizes[i]));
  }

  /** Lets go of the rows of chunks a committed write removed. */
  removed(ids: string[]): void {
    for (const id of ids) {
      const kept = this.kept.get(id);
      if (!kept) continue;
      this.kept.delete(id);
      this.count(kept.row.project_id, -kept.bytes);
    }
    retrievalMetrics.rowsBytes.set(this.bytes);
  }

  /** Lets an index's rows go (it was dropped): read ahead again should it be written anew. */
  forget(key: string): void {
    this.ahead.delete(key);
    if (this.forgotten.size >= KEYS_REMEMBERED) this.forgotten.clear();
    this.forgotten.set(key, (this.forgotten.get(key) ?? 0) + 1);
    for (const [id, kept] of this.kept) {
      if (kept.row.project_id !== key) continue;
      this.kept.delete(id);
      this.count(key, -kept.bytes);
    }
    retrievalMetrics.rowsBytes.set(this.bytes);
  }

  /**
   * Whether the index's rows were all read and kept: read in pages and cut for snippets, each kept while the index's
   * rows read so far take at most half the budget; beyond, the rest are left to searches to find.
   */
  private async readAll(key: string): Promise<boolean> {
    const epoch = this.forgotten.get(key);
    let after = { item: '00000000-0000-0000-0000-000000000000', id: '0' };
    let bytes = 0;
    for (;;) {
      const rows = unpacked(
        await preparedRows<Packed<ChunkRow>>(
          this.ds,
          `SELECT ${COLUMNS} FROM retrieval.chunks WHERE project_id = $1 AND (item_id, id) > ($2::uuid, $3::bigint) ORDER BY item_id, id LIMIT $4`,
          [key, after.item, after.id, AHEAD_ROWS],
        ),
      );
      if (!rows.length) return true;
      // Cut in slices: this runs beside the requests of the process.
      const slices = new TimeSlices(5);
      for (const row of rows) {
        if (slices.due()) await slices.next();
        // Dropped meanwhile (nothing more is kept), or some of its rows were let go for room.
        if (this.forgotten.get(key) !== epoch || this.ahead.get(key) !== 'reading') return false;
        const size = rowBytes(row);
        const pieces = cut(row.text, row.language);
        if (bytes + size + piecesBytes(pieces) > this.budget / 2) return false;
        bytes += size + piecesBytes(pieces);
        if (!this.kept.has(row.id)) this.keep(row, size, pieces);
      }
      const last = rows[rows.length - 1];
      after = { item: last.item_id, id: last.id };
    }
  }

  private keep(row: ChunkRow, bytes: number, pieces?: Pieces): void {
    const before = this.kept.get(row.id);
    if (before) {
      this.count(before.row.project_id, -before.bytes);
      this.kept.delete(row.id);
    }
    const entry = { row, bytes: 0, pieces };
    this.kept.set(row.id, entry);
    this.grow(entry, bytes + (pieces ? piecesBytes(pieces) : 0));
  }

  /** Counts bytes more for a kept entry, letting the least recently found go while over the budget. */
  private grow(entry: { row: ChunkRow; bytes: number }, bytes: number): void {
    entry.bytes += bytes;
    this.count(entry.row.project_id, bytes);
    for (const [id, kept] of this.kept) {
      if (this.bytes <= this.budget) break;
      this.kept.delete(id);
      this.count(kept.row.project_id, -kept.bytes);
      // Its index's rows are no longer all here: what is written to it is read when found, like the rest.
      if (this.ahead.has(kept.row.project_id)) this.ahead.set(kept.row.project_id, 'partial');
    }
    retrievalMetrics.rowsBytes.set(this.bytes);
  }

  private count(key: string, bytes: number): void {
    this.bytes += bytes;
    const total = (this.keyBytes.get(key) ?? 0) + bytes;
    if (total > 0) this.keyBytes.set(key, total);
    else this.keyBytes.delete(key);
  }
}
