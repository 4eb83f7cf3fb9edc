import { ChunkInput } from '@askdata/contracts';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { PostingKeyRebuild, TABLE_SIZE } from '../../apps/retrieval/src/index/posting-key-rebuild';
import { SearchQuery } from '../../apps/retrieval/src/index/search-index';
import { ScratchIndex } from './support/retrieval-index';

/**
 * The posting blocks' primary key rebuilt online once merges have left it mostly empty: it shrinks, searches in SQL
 * find what they found before, writes go on as before, and what a rebuild cut short left behind is dropped. Where
 * allowed, the table is rewritten with its key instead, giving back the room merges left in both.
 */
jest.setTimeout(120000);

describe("the posting blocks' key rebuilt", () => {
  const t = new ScratchIndex('askdata_posting_key_test', 64);
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  /** Mostly rare words: nearly every block a batch writes holds a posting or two, and merging removes most rows. */
  const text = () => Array.from({ length: 40 }, () => (rand() < 0.2 ? 'harbour' : `w${Math.floor(rand() * 5000)}`)).join(' ');
  const item = (i: number, version = 0): ChunkInput => ({
    itemId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    clientItemId: `item-${i}`,
    collection: 'docks',
    tenant: null,
    url: null,
    metadata: { n: i, version },
    title: '',
    chunks: [text()],
  });
  const scope = (projectId: string) => ({ projectId, tenancy: 'single' as const });
  const queries = (key: string): SearchQuery[] =>
    ['w1 w2 w3 harbour', 'w17 w4000 w256', 'w4999 w12 w3001 w77 w78'].map((text) => ({
      text,
      tenant: null,
      collections: null,
      filters: [{ field: 'n', conditions: [{ op: 'gte' as const, value: 0 }] }],
      scope: scope(key),
      limit: 20,
    }));
  const found = async (key: string) => Promise.all(queries(key).map(async (q) => (await t.index.search(q)).map((h) => [h.item_id, h.score])));
  /** The key rebuilt online at `keyRatio`, the table rewritten at `rewriteRatio` while its live rows take at most `rewriteMaxMb`. */
  const postings = (keyRatio: number, rewriteRatio: number, rewriteMaxMb = 128) =>
    new PostingKeyRebuild(t.ds, { POSTING_KEY_REBUILD_RATIO: keyRatio, POSTING_BLOCKS_REWRITE_RATIO: rewriteRatio, POSTING_BLOCKS_REWRITE_MAX_MB: rewriteMaxMb }, 0);

  /** The key's bytes, its file (a new one once rebuilt), whether it is valid, and the other indexes of the table. */
  async function key(): Promise<{ bytes: number; file: number; valid: boolean; others: string[] }> {
    const [row] = await t.ds.query<Array<{ bytes: string; file: number; valid: boolean }>>(
      `SELECT pg_relation_size(c.oid) AS bytes, c.relfilenode::int AS file, i.indisvalid AS valid
       FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.oid = 'retrieval."PK_posting_blocks"'::regclass`,
    );
    const others = await t.ds.query<Array<{ name: string }>>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = 'retrieval.posting_blocks'::regclass AND c.relname <> 'PK_posting_blocks'`,
    );
    return { bytes: Number(row.bytes), file: row.file, valid: row.valid, others: others.map((o) => o.name) };
  }

  it('shrinks the key once merges emptied it, and searches and writes go on as before', async () => {
    const project = randomUUID();
    for (let b = 0; b < 30; b++)
      await t.index.replace(
        scope(project),
        Array.from({ length: 20 }, (_, i) => item(b * 20 + i)),
      );
    const written = await key();
    await t.merges.merge(project);
    await t.ds.query('VACUUM (ANALYZE) retrieval.posting_blocks');
    const merged = await key();
    // Merging took most rows away but none of the key's pages (it added the merged rows' entries).
    expect(merged.bytes).toBeGreaterThanOrEqual(written.bytes);
    const before = await found(project);
    expect(before.every((hits) => hits.length > 0)).toBe(true);

    const rebuild = postings(3, 0);
    expect(await rebuild.run({ paused: true })).toBe('rebuilt');
    const rebuilt = await key();
    expect(rebuilt.file).not.toBe(merged.file);
    expect(rebuilt.valid).toBe(true);
    expect(rebuilt.others).toEqual([]);
    expect(rebuilt.bytes).toBeLessThan(merged.bytes / 3);
    expect(await found(project)).toEqual(before);

    // Compact now: left as it is.
    expect(await rebuild.run({ paused: true })).toBe('not_needed');
    expect((await key()).file).toBe(rebuilt.file);

    // Items replaced and removed through the new key: their postings go, the others stay found.
    await t.index.replace(scope(project), [item(3, 1), { ...item(17), chunks: [] }]);
    const after = await found(project);
    expect(after.flat().some(([id]) => id === item(17).itemId)).toBe(false);
    expect(after.flat().length).toBeGreaterThan(0);
    const [{ count }] = await t.ds.query<Array<{ count: number }>>(
      `SELECT count(*)::int AS count FROM retrieval.posting_blocks b, unnest(b.chunk_ids) AS x(id)
       WHERE b.project_id = $1 AND NOT EXISTS (SELECT 1 FROM retrieval.chunks c WHERE c.id = x.id)`,
      [project],
    );
    expect(count).toBe(0);
  });

  it('drops what a rebuild cut short left behind, and leaves the key alone when off or when another replica rebuilds it', async () => {
    // An invalid index named as REINDEX CONCURRENTLY names its new one, as a rebuild cut short leaves it.
    await expect(t.ds.query(`CREATE UNIQUE INDEX CONCURRENTLY "PK_posting_blocks_ccnew" ON retrieval.posting_blocks (collection)`)).rejects.toThrow();
    expect((await key()).others).toEqual(['PK_posting_blocks_ccnew']);
    const file = (await key()).file;

    expect(await postings(0, 0).run({ paused: true })).toBe('off');
    expect((await key()).others).toEqual(['PK_posting_blocks_ccnew']);

    const other = new Client({ connectionString: t.scratch.url });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('retrieval.posting_blocks key rebuild'))`);
      expect(await postings(3, 0).run({ paused: true })).toBe('busy');
      expect((await key()).others).toEqual(['PK_posting_blocks_ccnew']);
    } finally {
      await other.end();
    }

    // Dropped even when the key itself is not due.
    expect(await postings(1000, 0).run({ paused: true })).toBe('not_needed');
    expect(await key()).toMatchObject({ file, valid: true, others: [] });
  });

  it('rewrites the table with its key once merges emptied them, where allowed; a session holding the table defers it', async () => {
    const project = randomUUID();
    for (let b = 0; b < 30; b++)
      await t.index.replace(
        scope(project),
        Array.from({ length: 20 }, (_, i) => item(10_000 + b * 20 + i)),
      );
    await t.merges.merge(project);
    await t.ds.query('VACUUM (ANALYZE) retrieval.posting_blocks');
    const heap = async () => Number((await t.ds.query<Array<{ bytes: string }>>(`SELECT pg_relation_size('retrieval.posting_blocks') AS bytes`))[0].bytes);
    const [heapBefore, keyBefore, before] = [await heap(), await key(), await found(project)];
    expect(before.every((hits) => hits.length > 0)).toBe(true);
    const rewrite = postings(0, 3);

    // A search's transaction holds the table: the rewrite gives up on its lock instead of queueing everyone behind it.
    const reader = new Client({ connectionString: t.scratch.url });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM retrieval.posting_blocks');
      expect(await rewrite.run({ paused: true })).toBe('busy');
      expect(await heap()).toBe(heapBefore);
      await reader.query('COMMIT');
    } finally {
      await reader.end();
    }

    // Live rows beyond POSTING_BLOCKS_REWRITE_MAX_MB: the table keeps its room (the key alone is rebuilt online, if on).
    const [{ needed }] = await t.ds.query<Array<{ needed: number }>>(TABLE_SIZE);
    const live = needed / 2 ** 20;
    expect(await postings(0, 3, live / 2).run({ paused: true })).toBe('not_needed');
    expect(await heap()).toBe(heapBefore);
    expect(await postings(3, 3, live / 2).run({ paused: true })).toBe('rebuilt');
    expect(await heap()).toBe(heapBefore);

    // Not while writes or merges go on: one rewrite once they pause, not one after another as merges empty rows.
    expect(await rewrite.run({ paused: false })).toBe('not_needed');
    expect(await heap()).toBe(heapBefore);
    expect(await rewrite.run({ paused: true })).toBe('rewritten');
    expect(await heap()).toBeLessThan(heapBefore / 2);
    // Its pages marked all-visible again, as a vacuum leaves them.
    const [pages] = await t.ds.query<Array<{ pages: number; visible: number }>>(
      `SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE oid = 'retrieval.posting_blocks'::regclass`,
    );
    expect(pages.pages).toBeGreaterThan(0);
    expect(pages.visible).toBe(pages.pages);
    expect((await key()).bytes).toBeLessThan(keyBefore.bytes / 3);
    expect(await found(project)).toEqual(before);
    // Compact now: left as it is.
    expect(await rewrite.run({ paused: true })).toBe('not_needed');
  });
});
