import { Logger } from '@nestjs/common';
import { inBackground, outsideRequest, preparedRows } from '@askdata/common';
import { DataSource } from 'typeorm';
import { retrievalMetrics } from '../retrieval.metrics';
import { ChunkFields } from './batch-preparation';

/** A chunk's fields as a hit shows them, with its number and index key. */
export type ChunkRow = ChunkFields & { id: string; project_id: string };

const COLUMNS = 'id::text AS id, project_id, item_id, client_item_id, collection, tenant, url, metadata, text, language, n';
/** Items whose rows a read ahead asks for at a time. */
const AHEAD_ITEMS = 500;
/** Keys read ahead are remembered (so each is read once) up to this many. */
const KEYS_REMEMBERED = 10_000;

/** What a row takes in memory, roughly: its strings (one byte a character, two beyond Latin-1) and its object. */
export function rowBytes(row: ChunkRow): number {
  const chars = (s: string | null | undefined) => (s ? s.length * (/[^\u0000-\u00ff]/.test(s) ? 2 : 1) : 0);
  return 300 + chars(row.text) + chars(row.url) + chars(row.client_item_id) + chars(row.collection) + chars(JSON.stringify(row.metadata ?? null));
}

/**
 * The rows of the chunks searches found, by number, the most recently found kept, within a budget of bytes
 * (`SEARCH_ROWS_MB`). A chunk's number is never given to another chunk (a replaced chunk is a new one,
 * `chunkNumber`), so a row read once stays true for as long as the chunk exists, and the memory index names only
 * chunks that exist: a popular answer is shown without a statement, which standalone's single database session would
 * make wait behind an index write. An index whose rows take at most half the budget is read ahead whole on its first
 * search, so its searches need no statement at all.
 */
export class ChunkRows {
  private readonly log = new Logger(ChunkRows.name);
  private readonly kept = new Map<string, { row: ChunkRow; bytes: number }>();
  private bytes = 0;
  private readonly aheadOf = new Set<string>();

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
    const rows = await preparedRows<ChunkRow>(this.ds, `SELECT ${COLUMNS} FROM retrieval.chunks WHERE project_id = $1 AND id = ANY($2::bigint[])`, [key, missing]);
    for (const row of rows) {
      found.set(row.id, row);
      this.keep(row, rowBytes(row));
    }
    return found;
  }

  /**
   * Reads the rows of `key`'s index ahead, in the background and behind reads, once: all of them when they take at
   * most half the budget, else none (they are kept as searches find them).
   */
  readAhead(key: string): Promise<void> {
    if (this.aheadOf.has(key) || this.budget <= 0) return Promise.resolve();
    if (this.aheadOf.size >= KEYS_REMEMBERED) this.aheadOf.clear();
    this.aheadOf.add(key);
    return outsideRequest(() => inBackground(() => this.readAll(key))).catch((e: unknown) =>
      this.log.warn(`Reading the rows of index ${key} ahead failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  private async readAll(key: string): Promise<void> {
    const [stats] = await preparedRows<{ chunk_count: number }>(this.ds, 'SELECT chunk_count FROM retrieval.stats WHERE project_id = $1', [key]);
    let cursor = '00000000-0000-0000-0000-000000000000';
    let read = 0;
    let bytes = 0;
    for (;;) {
      const rows = await preparedRows<ChunkRow>(
        this.ds,
        `SELECT ${COLUMNS} FROM retrieval.chunks WHERE project_id = $1 AND item_id IN (
           SELECT DISTINCT item_id FROM retrieval.chunks WHERE project_id = $1 AND item_id > $2 ORDER BY item_id LIMIT $3)`,
        [key, cursor, AHEAD_ITEMS],
      );
      if (!rows.length) return;
      const sizes = rows.map(rowBytes);
      read += rows.length;
      bytes += sizes.reduce((a, b) => a + b, 0);
      // The index's size, estimated from the rows read so far.
      if ((bytes / read) * Math.max(read, stats?.chunk_count ?? 0) > this.budget / 2) return;
      rows.forEach((row, i) => {
        if (!this.kept.has(row.id)) this.keep(row, sizes[i]);
      });
      for (const row of rows) if (row.item_id > cursor) cursor = row.item_id;
    }
  }

  private keep(row: ChunkRow, bytes: number): void {
    const before = this.kept.get(row.id);
    if (before) {
      this.bytes -= before.bytes;
      this.kept.delete(row.id);
    }
    this.kept.set(row.id, { row, bytes });
    this.bytes += bytes;
    for (const [id, kept] of this.kept) {
      if (this.bytes <= this.budget) break;
      this.kept.delete(id);
      this.bytes -= kept.bytes;
    }
    retrievalMetrics.rowsBytes.set(this.bytes);
  }
}
