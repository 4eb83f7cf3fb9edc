import { ChunkInput } from '@askdata/contracts';
import { loadConfig } from '@askdata/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BatchPreparer } from '../../apps/retrieval/src/index/batch-preparer';
import { BlockMerges } from '../../apps/retrieval/src/index/block-merges';
import { IndexVacuum } from '../../apps/retrieval/src/index/index-vacuum';
import { MemoryIndexes } from '../../apps/retrieval/src/index/memory-indexes';
import { PostgresIndex } from '../../apps/retrieval/src/index/postgres-index';
import { SearchQuery } from '../../apps/retrieval/src/index/search-index';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { ScratchIndex } from './support/retrieval-index';

/**
 * Posting blocks merged in the background: two projects get the same writes, batch by batch, and one of them has its
 * small blocks merged now and then. Its index then holds fewer rows with the same postings, and every search (in SQL,
 * with tenants, collections and metadata filters) finds what the other project's finds, through items replaced and
 * removed after their blocks were merged.
 */
jest.setTimeout(120000);

const COMMON = 'harbour ship rope sail anchor'.split(' ');

describe('posting blocks merged', () => {
  // Merged only when the test says so; blocks of fewer than 4 postings are small.
  const scratch = new ScratchIndex('askdata_block_merges_test', 4);
  let ds: DataSource;
  let index: PostgresIndex;
  let merges: BlockMerges;
  beforeAll(async () => {
    await scratch.start();
    ({ ds, index, merges } = scratch);
  });
  afterAll(() => scratch.stop());

  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  /** Common words, and rare ones (`w<n>`, a few hundred of them): most of a batch's blocks hold one posting. */
  const text = () => Array.from({ length: 12 }, () => (rand() < 0.4 ? COMMON[Math.floor(rand() * COMMON.length)] : `w${Math.floor(rand() * 300)}`)).join(' ');
  const item = (i: number, version = 0): ChunkInput => ({
    itemId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    clientItemId: `item-${i}`,
    collection: i % 3 ? 'docks' : 'ships',
    tenant: (i % 2) + 1,
    url: null,
    metadata: { n: i, version },
    title: '',
    chunks: [text(), text()],
  });

  const queries = (key: string): SearchQuery[] =>
    [
      { text: 'harbour ship', tenant: 1, collections: null, filters: [] },
      { text: 'w1 w2 w3 w40 anchor', tenant: 2, collections: null, filters: [] },
      { text: 'w7 w8 w9 w10 w11 w12 rope', tenant: 1, collections: ['ships'], filters: [] },
      { text: 'w5 w6 sail w100 w200', tenant: 2, collections: null, filters: [{ field: 'n', conditions: [{ op: 'lt' as const, value: 60 }] }] },
    ].map((q) => ({ ...q, scope: { projectId: key, tenancy: 'multi' as const }, limit: 20 }));

  async function found(key: string) {
    const out = [];
    for (const q of queries(key)) out.push((await index.search(q)).map((h) => [h.item_id, h.chunk, h.score]));
    return out;
  }

  /** Every posting of the index: term, band, collection, chunk (by item and number), impact and tenant. */
  async function postings(key: string): Promise<string[]> {
    const rows = await ds.query<Array<{ p: string }>>(
      `SELECT concat_ws(' ', b.term, b.band, b.collection, c.item_id, c.n, p.impact, p.tenant) AS p
       FROM retrieval.posting_blocks b CROSS JOIN LATERAL unnest(b.chunk_ids, b.impacts, b.tenants) AS p(chunk_id, impact, tenant)
       JOIN retrieval.chunks c ON c.id = p.chunk_id AND c.project_id = b.project_id AND c.block >= b.block
       WHERE b.project_id = $1`,
      [key],
    );
    return rows.map((r) => r.p).sort();
  }

  /** The index's rows and postings, rows miscounted or out of order, and small rows next to a small row (not merged). */
  async function shape(key: string): Promise<{ rows: number; postings: number; miscounted: number; unordered: number; unmerged: number }> {
    const [row] = await ds.query<Array<{ rows: number; postings: number; miscounted: number; unordered: number; unmerged: number }>>(
      `SELECT count(*)::int AS rows, COALESCE(sum(n), 0)::int AS postings,
              count(*) FILTER (WHERE n <> cardinality(chunk_ids) OR n = 0)::int AS miscounted,
              count(*) FILTER (WHERE impacts <> ARRAY(SELECT i FROM unnest(impacts) AS i ORDER BY i DESC))::int AS unordered,
              count(*) FILTER (WHERE n < 4 AND older < 4)::int AS unmerged
       FROM (SELECT *, lag(n) OVER (PARTITION BY term, band, collection ORDER BY block) AS older FROM retrieval.posting_blocks WHERE project_id = $1) b`,
      [key],
    );
    return row;
  }

  it('holds the same postings in fewer rows, and searches find the same through replacements and removals', async () => {
    const merged = randomUUID();
    const plain = randomUUID();
    const scope = (projectId: string) => ({ projectId, tenancy: 'multi' as const });
    const write = async (items: ChunkInput[]) => {
      await index.replace(scope(merged), items);
      await index.replace(scope(plain), items);
    };

    // Twelve batches of ten items, merged after the fourth and the twelfth.
    for (let b = 0; b < 12; b++) {
      await write(Array.from({ length: 10 }, (_, i) => item(b * 10 + i)));
      if (b === 3) await merges.merge(merged);
    }
    await merges.merge(merged);
    const before = await shape(plain);
    const after = await shape(merged);
    expect(after.postings).toBe(before.postings);
    expect(after.rows).toBeLessThan(before.rows / 2);
    expect({ ...after, rows: 0 }).toEqual({ rows: 0, postings: before.postings, miscounted: 0, unordered: 0, unmerged: 0 });
    expect(before.unmerged).toBeGreaterThan(100);
    expect(await postings(merged)).toEqual(await postings(plain));
    expect((await found(merged))[0].length).toBeGreaterThan(0);
    expect(await found(merged)).toEqual(await found(plain));

    // Items whose postings were merged, replaced (some with text no longer holding their words) and removed.
    await write([...[3, 17, 42, 55, 91].map((i) => item(i, 1)), ...[8, 64].map((i) => ({ ...item(i), chunks: [] }))]);
    await write([item(120), item(121)]);
    expect(await postings(merged)).toEqual(await postings(plain));
    expect(await found(merged)).toEqual(await found(plain));
    expect((await shape(merged)).miscounted).toBe(0);

    // Merged again: what the replacements wrote joins the rows it can.
    await merges.merge(merged);
    expect(await postings(merged)).toEqual(await postings(plain));
    expect(await found(merged)).toEqual(await found(plain));
    await write(Array.from({ length: 30 }, (_, i) => ({ ...item(i * 4), chunks: [] })));
    expect(await postings(merged)).toEqual(await postings(plain));
    expect(await found(merged)).toEqual(await found(plain));
    expect((await shape(merged)).miscounted).toBe(0);
  });

  it('merges nothing of a dropped index, and a write meanwhile loses nothing', async () => {
    const key = randomUUID();
    const plain = randomUUID();
    const scope = (projectId: string) => ({ projectId, tenancy: 'multi' as const });
    for (let b = 0; b < 3; b++)
      await index.replace(
        scope(key),
        Array.from({ length: 10 }, (_, i) => item(500 + b * 10 + i)),
      );
    await index.drop(key);
    await merges.merge(key);
    expect(await shape(key)).toEqual({ rows: 0, postings: 0, miscounted: 0, unordered: 0, unmerged: 0 });

    const batches = Array.from({ length: 4 }, (_, b) => Array.from({ length: 10 }, (_, i) => item(600 + b * 10 + i)));
    for (const batch of batches) {
      await index.replace(scope(key), batch);
      await index.replace(scope(plain), batch);
    }
    // The merge and a write that replaces items of it take turns on the index's lock, in either order.
    const replaced = [item(601, 1), item(615, 1), { ...item(622), chunks: [] }, item(640)];
    await Promise.all([merges.merge(key), index.replace(scope(key), replaced)]);
    await index.replace(scope(plain), replaced);
    await merges.merge(key);
    expect((await shape(key)).rows).toBeLessThan((await shape(plain)).rows);
    expect((await shape(key)).miscounted).toBe(0);
    expect(await postings(key)).toEqual(await postings(plain));
    expect(await found(key)).toEqual(await found(plain));
  });

  it('merges a trickle of small batches every BLOCK_MERGE_BATCHES, with no pause in the writes', async () => {
    const config = loadConfig(retrievalSettings, { BM25_DEPTH: '0', SEARCH_MEMORY_MB: '0', INDEX_PREPARATION_THREAD: 'false' });
    const vacuum = new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 });
    const every = new BlockMerges(ds, { BLOCK_MERGE_QUIET_MS: 3_600_000, BLOCK_MERGE_BATCHES: 5, BLOCK_MERGE_POSTINGS: 4 }, vacuum);
    const trickled = new PostgresIndex(ds, config, vacuum, new BatchPreparer(config), new MemoryIndexes(ds, config, false), every);
    const key = randomUUID();
    const plain = randomUUID();
    const scope = (projectId: string) => ({ projectId, tenancy: 'multi' as const });
    try {
      for (let i = 0; i < 12; i++) {
        const one = item(800 + i);
        await trickled.replace(scope(key), [one]);
        await index.replace(scope(plain), [one]);
      }
      // Merged after the fifth and the tenth: waiting for a merge of nothing waits for those.
      await every.merge(randomUUID());
      // The common words' blocks, a row per batch as written, merged into a row or two each.
      const rows = async (project: string) =>
        (await ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE project_id = $1 AND term = ANY($2::text[])`, [project, COMMON]))[0].n;
      expect(await rows(key)).toBeLessThan((await rows(plain)) / 2);
      expect(await postings(key)).toEqual(await postings(plain));
      expect(await found(key)).toEqual(await found(plain));
    } finally {
      every.onApplicationShutdown();
    }
  });
});
