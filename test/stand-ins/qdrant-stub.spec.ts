import { QdrantStub, startQdrantStub } from './qdrant-stub';

/**
 * The Qdrant stand-in itself: it refuses what Qdrant's API document refuses, and it scores as Qdrant documents.
 * Tests of the index trust it only as far as these checks go.
 */
describe('Qdrant stand-in', () => {
  let stub: QdrantStub;
  beforeEach(async () => {
    stub = await startQdrantStub({ apiKey: 'secret' });
  });
  afterEach(() => stub.close());

  const call = async (method: string, path: string, body?: unknown, key = 'secret') => {
    const res = await fetch(`${stub.url}${path}`, {
      method,
      headers: { 'api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { result?: any; status: any } };
  };

  async function fruit(): Promise<void> {
    expect((await call('PUT', '/collections/c', { sparse_vectors: { s: { modifier: 'idf' } }, vectors: { d: { size: 2, distance: 'Cosine' } } })).status).toBe(200);
    const points = [
      { id: '00000000-0000-0000-0000-000000000001', vector: { s: { indices: [1, 2], values: [1, 1] }, d: [1, 0] }, payload: { g: 'a', n: 1, day: '2024-01-01' } },
      { id: '00000000-0000-0000-0000-000000000002', vector: { s: { indices: [2], values: [2] }, d: [0, 1] }, payload: { g: 'a', n: 2.5, tags: ['x', 'y'] } },
      { id: '00000000-0000-0000-0000-000000000003', vector: { s: { indices: [3], values: [1] }, d: [1, 1] }, payload: { g: 'b', 'a.b': true } },
    ];
    expect((await call('PUT', '/collections/c/points?wait=true', { points })).status).toBe(200);
  }

  it('refuses requests that do not fit the API document with 400 and records them', async () => {
    const bad = [
      await call('PUT', '/collections/x', { sparse_vectors: { s: { modifier: 'IDF' } } }),
      await call('PUT', '/collections/x', { sparse_vectors: { s: { modifer: 'idf' } } }),
      await call('POST', '/collections/x/points/query/groups', { query: { indices: [1], values: [1] }, using: 's' }),
      await call('POST', '/collections/x/points/query', { query: { indices: [4294967296], values: [1] }, using: 's' }),
      await call('POST', '/collections/x/points/query', { filter: { must: [{ key: 'k', match: { any: ['a', 'a'] } }] } }),
      await call('PUT', '/collections/x/points?wait=maybe', { points: [] }),
    ];
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(bad[0].body.status.error).toMatch(/^Format error in JSON body: \/sparse_vectors\/s\/modifier must be equal to one of the allowed values/);
    expect(stub.problems()).toHaveLength(6);
  });

  it('checks the API key', async () => {
    expect((await call('GET', '/collections', undefined, 'wrong')).status).toBe(401);
    expect((await call('GET', '/collections')).status).toBe(200);
  });

  it('refuses points that do not fit the collection', async () => {
    await fruit();
    const wrongSize = await call('PUT', '/collections/c/points', { points: [{ id: 9, vector: { d: [1, 2, 3] } }] });
    const wrongName = await call('PUT', '/collections/c/points', { points: [{ id: 9, vector: { dense: [1, 2] } }] });
    const duplicate = await call('PUT', '/collections/c/points', { points: [{ id: 9, vector: { s: { indices: [1, 1], values: [1, 1] } } }] });
    expect([wrongSize.status, wrongName.status, duplicate.status]).toEqual([400, 400, 400]);
    expect(wrongSize.body.status.error).toBe('Wrong input: Vector dimension error: expected dim: 2, got 3 (points[0].vector.d)');
  });

  it("scores sparse vectors with Qdrant's IDF and finds only points sharing an index", async () => {
    await fruit();
    const { body } = await call('POST', '/collections/c/points/query', { query: { indices: [1, 2], values: [1, 1] }, using: 's', with_payload: false });
    const idf = (n: number) => Math.log(1 + (3 - n + 0.5) / (n + 0.5));
    expect(body.result.points.map((p: { id: string; score: number }) => [p.id.slice(-1), p.score])).toEqual([
      ['1', expect.closeTo(idf(1) + idf(2), 6)],
      ['2', expect.closeTo(2 * idf(2), 6)],
    ]);
    expect(body.result.points[0].payload).toBeUndefined();
  });

  it('fuses prefetches with RRF (k = 2, ranks from 0) and groups by a payload field', async () => {
    await fruit();
    const { body } = await call('POST', '/collections/c/points/query/groups', {
      prefetch: [
        { query: { indices: [2], values: [1] }, using: 's', limit: 10 },
        { query: [0, 1], using: 'd', limit: 10 },
      ],
      query: { fusion: 'rrf' },
      group_by: 'g',
      group_size: 1,
      limit: 5,
      with_payload: ['g'],
    });
    // Sparse ranks 2 then 1; dense ranks 2, 3, then 1.
    expect(body.result.groups).toEqual([
      { id: 'a', hits: [{ id: '00000000-0000-0000-0000-000000000002', version: 1, score: expect.closeTo(1 / 2 + 1 / 2, 6), payload: { g: 'a' } }] },
      { id: 'b', hits: [{ id: '00000000-0000-0000-0000-000000000003', version: 1, score: expect.closeTo(1 / 3, 6), payload: { g: 'b' } }] },
    ]);
  });

  it('filters with must, should, must_not, match any, ranges, datetimes and quoted keys', async () => {
    await fruit();
    const ids = async (filter: unknown) => {
      const { status, body } = await call('POST', '/collections/c/points/query', { filter, limit: 10 });
      expect(status).toBe(200);
      return body.result.points.map((p: { id: string }) => p.id.slice(-1));
    };
    expect(await ids({ must: [{ key: 'g', match: { value: 'a' } }] })).toEqual(['1', '2']);
    expect(await ids({ must: [{ key: 'tags', match: { any: ['y', 'z'] } }] })).toEqual(['2']);
    expect(await ids({ must_not: [{ key: 'g', match: { value: 'a' } }] })).toEqual(['3']);
    expect(await ids({ must: [{ key: 'n', range: { gt: 1 } }] })).toEqual(['2']);
    expect(await ids({ must: [{ key: 'day', range: { lt: '2024-01-01T00:00:01Z' } }] })).toEqual(['1']);
    expect(await ids({ must: [{ key: '"a.b"', match: { value: true } }] })).toEqual(['3']);
    expect(
      await ids({
        should: [
          { key: 'n', match: { value: 1 } },
          { key: 'g', match: { value: 'b' } },
        ],
      }),
    ).toEqual(['1', '3']);
    expect(stub.problems()).toEqual([]);
  });

  it('deletes points by filter and answers 404 for a collection that does not exist', async () => {
    await fruit();
    await call('POST', '/collections/c/points/delete?wait=true', { filter: { must: [{ key: 'g', match: { value: 'a' } }] } });
    expect(stub.points('c').map((p) => p.payload.g)).toEqual(['b']);
    expect((await call('POST', '/collections/none/points/query', {})).status).toBe(404);
    expect(stub.problems()).toEqual([]);
  });

  it('answers 501 to what it does not implement, so a test cannot pass on a guess', async () => {
    await fruit();
    const r = await call('POST', '/collections/c/points/query', { prefetch: [{ query: [1, 0], using: 'd' }], query: { fusion: 'dbsf' } });
    expect(r.status).toBe(501);
    expect(stub.problems()).toEqual([expect.stringMatching(/501: Not implemented by the stand-in: fusion dbsf/)]);
  });
});
