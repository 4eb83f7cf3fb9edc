import { Api, Running, startService } from '../../bench/lib/service';

/**
 * The PostgreSQL index reads only the best postings of each query term (BM25_DEPTH). Here the depth is 2, far
 * below the number of matching chunks, so any filter applied after that cut would leave pages empty: tenant,
 * collection and metadata filters must act while the postings are read, and the rare term must still lead.
 */
jest.setTimeout(120000);

type Hits = { data: Array<{ item_id: string; collection: string; tenant: number | null; score: number }> };

describe('retrieval with a shallow posting depth', () => {
  let service: Running;
  let api: Api;
  beforeAll(async () => {
    service = await startService('distributed', { BM25_DEPTH: '2' }, 4320);
    api = await Api.withProject(service, 'multi');
    const strong = (i: number, tenant: number) => ({
      id: `strong-${tenant}-${i}`,
      tenant,
      data: { text: `Apple apple apple orchard number ${i}.` },
      metadata: { kind: 'common', n: i },
    });
    await api.upsertAll(
      Array.from({ length: 12 }, (_, i) => strong(i, 1)),
      { collection: { slug: 'orchards', metadata: { kind: { type: 'string' }, n: { type: 'number' } } } },
    );
    await api.upsertAll(
      [
        { id: 'weak-b', tenant: 1, data: { text: 'One apple in a long sentence about harbours, ships, ropes, sails and the sea.' }, metadata: { kind: 'rare', n: 100 } },
        { id: 'zebra', tenant: 1, data: { text: 'An apple and a zebra walked along a road with many other words in it.' }, metadata: { kind: 'rare', n: 101 } },
      ],
      { collection: { slug: 'harbours', metadata: { kind: { type: 'string' }, n: { type: 'number' } } } },
    );
    await api.upsertAll([{ id: 'weak-t2', tenant: 2, data: { text: 'A single apple among tenant two words and more words.' } }], { collection: { slug: 'orchards' } });
  });
  afterAll(() => service.stop());

  const search = (body: Record<string, unknown>) => api.call<Hits>('POST', '/search', { limit: 5, ...body });

  it('fills the page from the strongest postings when nothing is filtered', async () => {
    const hits = await search({ text: 'apple', tenant: 1 });
    expect(hits.data).toHaveLength(5);
    expect(hits.data.every((h) => h.item_id.startsWith('strong-1-'))).toBe(true);
  });

  it('applies the tenant while reading postings', async () => {
    const hits = await search({ text: 'apple', tenant: 2 });
    expect(hits.data.map((h) => h.item_id)).toEqual(['weak-t2']);
  });

  it('applies collections while reading postings', async () => {
    const hits = await search({ text: 'apple', tenant: 1, collections: ['harbours'] });
    expect(hits.data.map((h) => h.item_id).sort()).toEqual(['weak-b', 'zebra']);
  });

  it('applies metadata filters while reading postings', async () => {
    const rare = await search({ text: 'apple', tenant: 1, filter: { kind: 'rare' } });
    expect(rare.data.map((h) => h.item_id).sort()).toEqual(['weak-b', 'zebra']);
    const range = await search({ text: 'apple', tenant: 1, filter: { n: { $gte: 10, $lt: 101 } } });
    expect(range.data.map((h) => h.item_id).sort()).toEqual(['strong-1-10', 'strong-1-11', 'weak-b']);
  });

  it('ranks a chunk with a rare query term first even when its common term is weak', async () => {
    const hits = await search({ text: 'apple zebra', tenant: 1 });
    expect(hits.data[0].item_id).toBe('zebra');
    expect(hits.data[0].score).toBeGreaterThan(hits.data[1].score);
  });
});
