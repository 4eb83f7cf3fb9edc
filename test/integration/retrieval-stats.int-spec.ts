import { Client } from 'pg';
import { Api, Running, startService } from '../../bench/lib/service';
import { bandOf } from '../../apps/retrieval/src/index/bands';
import { forwardOf, IMPACT_MASK } from '../../apps/retrieval/src/index/forward-entries';

/**
 * BM25 statistics of the PostgreSQL index stay exact as items are added, replaced and re-sent: document
 * frequencies (the sums of the blocks' counts) and the collection size always equal what the postings and chunks
 * say, deletes included.
 */
jest.setTimeout(120000);

describe('retrieval statistics', () => {
  let service: Running;
  beforeAll(async () => {
    // Posting blocks merged after 100 ms without writes: removals meet merged blocks as well as blocks as written.
    service = await startService('distributed', { BLOCK_MERGE_QUIET_MS: '100' }, 4300);
  });
  afterAll(() => service.stop());

  async function drift(): Promise<{ terms: number; stats: number }> {
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    try {
      // Every posting, out of its block, with the block's key.
      const postings = `SELECT b.project_id, b.term, b.band, b.block, b.collection, p.chunk_id, p.impact
        FROM retrieval.posting_blocks b CROSS JOIN LATERAL unnest(b.chunk_ids, b.impacts) AS p(chunk_id, impact)`;
      // Each block's count is its postings (a term's document frequency is the sum of its blocks' counts).
      const counts = await db.query(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE n <> cardinality(chunk_ids) OR n <> cardinality(impacts)`);
      const stats = await db.query(`
        SELECT count(*)::int AS n FROM retrieval.stats s
        LEFT JOIN (SELECT project_id, count(*) AS c, sum(length) AS l FROM retrieval.chunks GROUP BY 1) c USING (project_id)
        WHERE s.chunk_count <> COALESCE(c.c, 0) OR s.total_length <> COALESCE(c.l, 0)`);
      // Every posting is named by its chunk's forward index with the same impact, in the band the impact says and in
      // a block at or before the chunk's own (merged blocks take the oldest one's: BlockMerges), and nothing else is;
      // no block is left empty.
      const chunks = await db.query<{ project_id: string; id: string; block: string; collection: string; forward: Buffer | null; terms: Record<string, number> | null }>(
        `SELECT project_id, id::text AS id, block::text AS block, collection, forward, terms FROM retrieval.chunks`,
      );
      const f = {
        projects: [] as string[],
        terms: [] as string[],
        bands: [] as number[],
        blocks: [] as string[],
        collections: [] as string[],
        ids: [] as string[],
        impacts: [] as number[],
      };
      for (const c of chunks.rows) {
        const { names, entries } = forwardOf(c);
        names.forEach((term, k) => {
          const impact = entries[k] & IMPACT_MASK;
          f.projects.push(c.project_id);
          f.terms.push(term);
          f.bands.push(bandOf(impact));
          f.blocks.push(c.block);
          f.collections.push(c.collection);
          f.ids.push(c.id);
          f.impacts.push(impact);
        });
      }
      const forward = await db.query(
        `
        SELECT count(*)::int AS n FROM (
          SELECT * FROM unnest($1::uuid[], $2::text[], $3::smallint[], $4::bigint[], $5::text[], $6::bigint[], $7::int[])
            AS f(project_id, term, band, block, collection, chunk_id, impact)
        ) f FULL JOIN (${postings}) p USING (project_id, term, band, collection, chunk_id, impact)
        WHERE f.chunk_id IS NULL OR p.chunk_id IS NULL OR p.block > f.block`,
        [f.projects, f.terms, f.bands, f.blocks, f.collections, f.ids, f.impacts],
      );
      const empty = await db.query(`SELECT count(*)::int AS n FROM retrieval.posting_blocks WHERE cardinality(chunk_ids) = 0`);
      return { terms: counts.rows[0].n + forward.rows[0].n + empty.rows[0].n, stats: stats.rows[0].n };
    } finally {
      await db.end();
    }
  }

  it('keeps document frequencies and sizes exact through replacements, and old text stops matching', async () => {
    const [a, b] = await Promise.all([Api.withProject(service), Api.withProject(service)]);
    await a.upsertAll([
      { id: '1', data: { title: 'Apples', text: 'Red apples and green apples grow on trees.' } },
      { id: '2', data: { title: 'Pears', text: 'Pears are sweet. ' + 'Orchards of pears. '.repeat(200) } },
    ]);
    await b.upsertAll([{ id: '1', data: { text: 'Apples in another project.' } }]);
    expect(await drift()).toEqual({ terms: 0, stats: 0 });

    await a.upsertAll([{ id: '1', data: { title: 'Bananas', text: 'Yellow bananas only now.' } }]);
    await a.upsertAll([{ id: '2', data: { title: 'Pears', text: 'Short now.' } }]);
    await a.upsertAll([{ id: '2', data: { title: 'Pears', text: 'Short now.' } }]);
    expect(await drift()).toEqual({ terms: 0, stats: 0 });

    const apples = await a.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'apples' });
    expect(apples.data).toEqual([]);
    const bananas = await a.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'yellow bananas' });
    expect(bananas.data.map((h) => h.item_id)).toEqual(['1']);
    const other = await b.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'apples' });
    expect(other.data.map((h) => h.item_id)).toEqual(['1']);
  });

  it('removes a replaced item from blocks it shares with items that stay, tenants included', async () => {
    const c = await Api.withProject(service, 'multi');
    const hits = async (text: string, tenant: number) =>
      (await c.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text, tenant })).data.map((h) => h.item_id).sort();
    await c.upsertAll(Array.from({ length: 6 }, (_, i) => ({ id: `o${i}`, tenant: (i % 2) + 1, data: { text: `The orchard keeper ${i} counts the orchard trees.` } })));
    expect(await hits('orchard keeper', 1)).toEqual(['o0', 'o2', 'o4']);
    await c.upsertAll([
      { id: 'o2', tenant: 1, data: { text: 'A lighthouse now.' } },
      { id: 'o3', tenant: 2, data: { text: 'The orchard keeper moved.' } },
    ]);
    expect(await drift()).toEqual({ terms: 0, stats: 0 });
    expect(await hits('orchard keeper', 1)).toEqual(['o0', 'o4']);
    expect(await hits('orchard keeper', 2)).toEqual(['o1', 'o3', 'o5']);
    expect(await hits('lighthouse', 1)).toEqual(['o2']);
    expect(await hits('lighthouse', 2)).toEqual([]);
  });

  it('a collection delete whose worker is killed part way is finished by the next one: nothing left, nothing removed twice', async () => {
    const d = await Api.withProject(service);
    const doc = (i: number) => ({ id: `g${i}`, data: { title: `Gone ${i}`, text: `Glacier note ${i} about ice shelves and fjord ${i % 37}.` } });
    await d.upsertAll(
      Array.from({ length: 4000 }, (_, i) => doc(i)),
      { collection: { slug: 'gone' } },
    );
    await d.upsertAll(
      Array.from({ length: 50 }, (_, i) => ({ id: `k${i}`, data: { text: `Kept note ${i} about ice cream and fjord ${i}.` } })),
      { collection: { slug: 'kept' } },
    );
    const [gone] = (await d.call<{ data: Array<{ id: string }> }>('GET', '/collections?slug=gone')).data;
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    try {
      const left = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog.items WHERE collection_id = $1', [gone.id])).rows[0].n;
      const receipt = (await d.call<{ data: { id: string } }>('DELETE', `/collections/${gone.id}`)).data.id;
      // Killed once a round has been applied and before the last: part of the collection is gone, part is not.
      const until = Date.now() + 60000;
      let before = await left();
      while (before === 4000 && Date.now() < until) before = await left();
      const [worker] = service.processes.get('ingestion')!;
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
      const atKill = await left();
      expect(atKill).toBeGreaterThan(0);
      expect(atKill).toBeLessThan(4000);
      service.spawnApp('ingestion');
      await d.waitCompleted([receipt], 120000);
      const done = await d.call<{ data: { attempts: number; kind: string } }>('GET', `/upserts/${receipt}`);
      expect(done.data).toMatchObject({ kind: 'delete', attempts: 2 });
      expect(await left()).toBe(0);
      const chunks = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM retrieval.chunks WHERE collection = 'gone'`);
      expect(chunks.rows[0].n).toBe(0);
      expect(await drift()).toEqual({ terms: 0, stats: 0 });
      const collections = await d.call<{ data: Array<{ slug: string; items_count: number }> }>('GET', '/collections');
      expect(collections.data.map((c) => [c.slug, c.items_count])).toEqual([['kept', 50]]);
      const hits = await d.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'fjord ice', limit: 100 });
      expect(hits.data.map((h) => h.item_id).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `k${i}`).sort());
    } finally {
      await db.end();
    }
  });
});
