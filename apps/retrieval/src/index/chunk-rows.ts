import { preparedRows } from '@askdata/common';
import { DataSource } from 'typeorm';
import { ChunkFields } from './batch-preparation';

/** A chunk's fields as a hit shows them, with its number and index key. */
export type ChunkRow = ChunkFields & { id: string; project_id: string };

/** Rows kept: the chunks of the most recent hits (a few MB). */
const KEPT = 2048;

/**
 * The rows of the chunks searches found, by number, the most recently found kept. A chunk's number is never given to
 * another chunk (a replaced chunk is a new one, `chunkNumber`), so a row read once stays true for as long as the chunk
 * exists, and the memory index names only chunks that exist: a popular answer is shown without a statement, which
 * standalone's single database session would make wait behind an index write.
 */
export class ChunkRows {
  private readonly kept = new Map<string, ChunkRow>();

  constructor(private readonly ds: DataSource) {}

  /** The rows of the chunks numbered `ids` under `key` (one removed meanwhile is missing). */
  async read(key: string, ids: string[]): Promise<Map<string, ChunkRow>> {
    const found = new Map<string, ChunkRow>();
    const missing: string[] = [];
    for (const id of ids) {
      const row = this.kept.get(id);
      if (row?.project_id !== key) {
        missing.push(id);
        continue;
      }
      // Most recently found last, so the first is the next to go.
      this.kept.delete(id);
      this.kept.set(id, row);
      found.set(id, row);
    }
    if (!missing.length) return found;
    const rows = await preparedRows<ChunkRow>(
      this.ds,
      `SELECT id::text AS id, project_id, item_id, client_item_id, collection, tenant, url, metadata, text, language, n
       FROM retrieval.chunks WHERE project_id = $1 AND id = ANY($2::bigint[])`,
      [key, missing],
    );
    for (const row of rows) {
      found.set(row.id, row);
      this.kept.set(row.id, row);
    }
    for (const id of this.kept.keys()) {
      if (this.kept.size <= KEPT) break;
      this.kept.delete(id);
    }
    return found;
  }
}
