import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ChunkInput, ErrorCode, FieldFilter, Scope } from '@askdata/contracts';
import { loadConfig, ServiceError } from '@askdata/common';
import { createEmbeddingProvider } from '../embeddings/embedding-factory';
import { retrievalSettings } from '../retrieval.config';
import { EmbeddingStub, startEmbeddingStub } from '../../../../test/stand-ins/embedding-stubs';
import { QdrantStub, startQdrantStub } from '../../../../test/stand-ins/qdrant-stub';
import { QdrantConnection, QdrantReadiness } from './qdrant-connection';
import { metadataKey, searchFilter } from './qdrant-filter';
import { QdrantIndex } from './qdrant-index';
import { chunkId, SearchQuery } from './search-index';
import { documentVector, termIndex } from './sparse-vectors';

/**
 * The Qdrant backend against the local stand-in: what it creates, stores and asks Qdrant, and how failures reach
 * the caller. What a search finds is the behavioural suite's business (test/integration/search-backends.int-spec.ts).
 */
beforeAll(() => Logger.overrideLogger(false));

const scope = (): Scope => ({ projectId: randomUUID(), tenancy: 'multi' });
const item = (over: Partial<ChunkInput> = {}): ChunkInput => ({
  itemId: randomUUID(),
  clientItemId: 'faq-1',
  collection: 'faq',
  tenant: 7,
  url: 'https://example.test/faq-1',
  metadata: { lang: 'en' },
  title: 'Opening hours',
  chunks: ['We are open from nine to five.', 'Closed on public holidays.'],
  ...over,
});
const query = (s: Scope, text: string, over: Partial<SearchQuery> = {}): SearchQuery => ({
  scope: s,
  text,
  collections: null,
  tenant: null,
  filters: [],
  limit: 10,
  ...over,
});

function setup(env: Record<string, string>, embeddings: EmbeddingStub | null = null) {
  const config = loadConfig(retrievalSettings, {
    SEARCH_BACKEND: 'qdrant',
    ...(embeddings ? { EMBEDDING_PROVIDER: embeddings.kind, EMBEDDING_URL: embeddings.url, EMBEDDING_MODEL: 'stub' } : {}),
    ...env,
  });
  const connection = new QdrantConnection(config);
  return { config, connection, index: new QdrantIndex(connection, config, createEmbeddingProvider(config, { backoffMs: 1 })) };
}

describe('QdrantIndex', () => {
  let stub: QdrantStub;
  beforeEach(async () => {
    stub = await startQdrantStub({ apiKey: 'k' });
  });
  afterEach(async () => {
    expect(stub.problems()).toEqual([]);
    await stub.close();
  });

  it('creates one collection per project on first use: sparse bm25 with IDF, tenant as an is_tenant keyword index', async () => {
    const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' });
    const s = scope();
    await index.replace(s, [item()]);
    await index.replace(s, [item()]);
    const name = QdrantIndex.collectionName(s.projectId);
    expect(name).toBe(`askdata_${s.projectId.replace(/-/g, '')}`);
    const creates = stub.requests.filter((r) => r.operationId === 'create_collection');
    expect(creates).toEqual([expect.objectContaining({ path: `/collections/${name}`, body: { sparse_vectors: { bm25: { modifier: 'idf' } } } })]);
    expect(stub.engine.get(name).payloadSchema).toEqual({
      tenant: { data_type: 'keyword', params: { type: 'keyword', is_tenant: true } },
      collection: { data_type: 'keyword' },
      item: { data_type: 'keyword' },
      chunk: { data_type: 'integer' },
    });
  });

  it('stores a point per chunk under its deterministic id, with a BM25 sparse vector and the hit fields as payload', async () => {
    const { index, config } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k', BM25_AVG_LENGTH: '20' });
    const s = scope();
    const it1 = item();
    expect(await index.replace(s, [it1])).toBe(2);
    const points = stub.points(QdrantIndex.collectionName(s.projectId)).sort((a, b) => Number(a.payload.chunk) - Number(b.payload.chunk));
    expect(points.map((p) => p.id)).toEqual([chunkId(it1.itemId, 0), chunkId(it1.itemId, 1)]);
    expect(points[0].payload).toEqual({
      item: it1.itemId,
      item_id: 'faq-1',
      collection: 'faq',
      tenant: '7',
      url: 'https://example.test/faq-1',
      metadata: { lang: 'en' },
      text: 'We are open from nine to five.',
      chunk: 0,
      language: 'en',
      title: 'Opening hours',
    });
    expect(points[1].payload).not.toHaveProperty('title');
    // "Opening hours\nWe are open from nine to five.": open (twice), hour, nine, five: 5 terms.
    const sparse = points[0].vectors.bm25 as { indices: number[]; values: number[] };
    const k1 = config.BM25_K1;
    const norm = k1 * (1 - config.BM25_B + (config.BM25_B * 5) / 20);
    expect(sparse.values[sparse.indices.indexOf(termIndex('open'))]).toBeCloseTo((2 * (k1 + 1)) / (2 + norm), 6);
    expect(sparse.values[sparse.indices.indexOf(termIndex('nine'))]).toBeCloseTo((k1 + 1) / (1 + norm), 6);
    expect(sparse).toEqual(documentVector('Opening hours\nWe are open from nine to five.', { k1, b: config.BM25_B, avgLength: 20 }));
  });

  it('replacing an item removes its chunks beyond the new count, and repeating it changes nothing', async () => {
    const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' });
    const s = scope();
    const it1 = item({ chunks: ['one', 'two', 'three'] });
    const other = item({ chunks: ['other'] });
    await index.replace(s, [it1, other]);
    const shorter = { ...it1, chunks: ['uno'] };
    await index.replace(s, [shorter]);
    await index.replace(s, [shorter]);
    const texts = stub
      .points(QdrantIndex.collectionName(s.projectId))
      .map((p) => p.payload.text)
      .sort();
    expect(texts).toEqual(['other', 'uno']);
    await index.replace(s, [{ ...it1, chunks: [] }]);
    expect(stub.points(QdrantIndex.collectionName(s.projectId)).map((p) => p.payload.text)).toEqual(['other']);
  });

  it('gives back what it stores, page by page, as the items it was given (to rebuild an index from), and drops it all', async () => {
    const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' });
    const s = scope();
    const items = Array.from({ length: 7 }, (_, i) => item({ clientItemId: `faq-${i}`, chunks: [`first ${i}`, `second ${i}`, `third ${i}`], language: i % 2 ? 'de' : 'en' }));
    await index.replace(s, items);
    expect(await index.count(s.projectId)).toBe(21);
    const seen = new Map<string, ChunkInput>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await index.scan(s.projectId, cursor, 4);
      for (const i of page.items) seen.set(i.itemId, i);
      cursor = page.next;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(pages).toBeGreaterThan(1);
    const sorted = (list: ChunkInput[]) => [...list].sort((a, b) => a.clientItemId.localeCompare(b.clientItemId));
    expect(sorted([...seen.values()])).toEqual(sorted(items));
    const missing = randomUUID();
    expect(await index.read(s.projectId, [items[3].itemId, missing])).toEqual([items[3], expect.objectContaining({ itemId: missing, chunks: [] })]);
    await index.drop(s.projectId);
    expect(await index.count(s.projectId)).toBe(0);
    expect(await index.scan(s.projectId, null, 4)).toEqual({ items: [], next: null });
  });

  it('searches with the Query API grouped by item, the filter inside the query', async () => {
    const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' });
    const s = scope();
    await index.replace(s, [item()]);
    const filters: FieldFilter[] = [{ field: 'lang', conditions: [{ op: 'eq', value: 'en' }] }];
    const hits = await index.search(query(s, 'when are you open', { tenant: 7, collections: ['faq'], filters }));
    expect(hits.map((h) => [h.item_id, h.chunk, h.tenant, h.collection, h.url, h.metadata])).toEqual([['faq-1', 0, 7, 'faq', 'https://example.test/faq-1', { lang: 'en' }]]);
    const search = stub.requests.find((r) => r.operationId === 'query_points_groups')!;
    expect(search.body).toEqual({
      query: { indices: [termIndex('open')], values: [1] },
      using: 'bm25',
      filter: searchFilter(7, ['faq'], filters),
      group_by: 'item',
      group_size: 1,
      limit: 10,
      with_payload: true,
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stub.engine.get(QdrantIndex.collectionName(s.projectId)).payloadSchema['metadata.lang']).toEqual({ data_type: 'keyword' });
  });

  it("with an embedding provider: dense vectors of the model's size, and sparse and dense prefetches fused with RRF", async () => {
    const voyage = await startEmbeddingStub('voyage', { dimensions: 12 });
    try {
      const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' }, voyage);
      const s = scope();
      await index.replace(s, [item()]);
      const create = stub.requests.find((r) => r.operationId === 'create_collection')!;
      expect(create.body).toEqual({ sparse_vectors: { bm25: { modifier: 'idf' } }, vectors: { dense: { size: 12, distance: 'Cosine' } } });
      const hits = await index.search(query(s, 'open hours'));
      expect(hits.map((h) => h.item_id)).toEqual(['faq-1']);
      const search = stub.requests.find((r) => r.operationId === 'query_points_groups')!.body as Record<string, any>;
      expect(search.query).toEqual({ fusion: 'rrf' });
      expect(search.prefetch.map((p: { using: string }) => p.using)).toEqual(['bm25', 'dense']);
      expect(search.prefetch[1].query).toHaveLength(12);
      expect(voyage.served.map((b) => b.input_type)).toEqual(['document', 'query']);
      expect(voyage.problems()).toEqual([]);
    } finally {
      await voyage.close();
    }
  });

  it('refuses to mix a collection built without embeddings with an embedding provider', async () => {
    const s = scope();
    await setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' }).index.replace(s, [item()]);
    const openai = await startEmbeddingStub('openai');
    try {
      const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' }, openai);
      const e = (await index.replace(s, [item()]).catch((err: unknown) => err)) as ServiceError;
      expect(e.code).toBe(ErrorCode.Unavailable);
      expect(e.message).toMatch(/created without dense vectors/);
    } finally {
      await openai.close();
    }
  });

  it("makes the collection again when it was deleted behind the service's back, with embeddings once asked to", async () => {
    const s = scope();
    const name = QdrantIndex.collectionName(s.projectId);
    const plain = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' }).index;
    await plain.replace(s, [item()]);
    const openai = await startEmbeddingStub('openai', { dimensions: 8 });
    try {
      const hybrid = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' }, openai).index;
      await expect(hybrid.replace(s, [item()])).rejects.toThrow(/created without dense vectors/);
      // What the operator is told to do: delete the collection and re-send the items.
      await fetch(`${stub.url}/collections/${name}`, { method: 'DELETE', headers: { 'api-key': 'k' } });
      expect(await hybrid.replace(s, [item()])).toBe(2);
      expect(stub.engine.get(name).dense).toEqual({ dense: { size: 8, distance: 'Cosine' } });
      await fetch(`${stub.url}/collections/${name}`, { method: 'DELETE', headers: { 'api-key': 'k' } });
      expect(await hybrid.replace(s, [item({ clientItemId: 'faq-2' })])).toBe(2);
      expect(stub.points(name).map((p) => p.payload.item_id)).toEqual(['faq-2', 'faq-2']);
      expect(openai.problems()).toEqual([]);
    } finally {
      await openai.close();
    }
  });

  it('a project with nothing indexed finds nothing, and deleting from it is no error', async () => {
    const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' });
    const s = scope();
    expect(await index.search(query(s, 'anything'))).toEqual([]);
    expect(await index.replace(s, [item({ chunks: [] })])).toBe(0);
    expect(await index.search(query(s, 'the and of'))).toEqual([]);
  });

  it('turns Qdrant failures into UNAVAILABLE: an error status, a wrong key, no answer', async () => {
    const s = scope();
    const { index } = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'k' });
    await index.replace(s, [item()]);
    stub.failNext(500);
    const failed = (await index.search(query(s, 'open')).catch((e: unknown) => e)) as ServiceError;
    expect([failed.code, failed.message]).toEqual([ErrorCode.Unavailable, expect.stringMatching(/Qdrant at .* failed to search: 500/)]);

    const wrongKey = setup({ QDRANT_URL: stub.url, QDRANT_API_KEY: 'nope' }).index;
    const refused = (await wrongKey.replace(s, [item()]).catch((e: unknown) => e)) as ServiceError;
    expect([refused.code, refused.message]).toEqual([ErrorCode.Unavailable, expect.stringMatching(/401/)]);
    expect(stub.problems()).toEqual([expect.stringMatching(/-> 401: Must provide an API key/)]);

    const url = stub.url;
    await stub.close();
    const gone = setup({ QDRANT_URL: url, QDRANT_TIMEOUT_MS: '500' });
    const down = (await gone.index.search(query(s, 'open')).catch((e: unknown) => e)) as ServiceError;
    expect(down.code).toBe(ErrorCode.Unavailable);
    await expect(new QdrantReadiness(gone.connection).check()).rejects.toThrow(/Qdrant at .* failed to list collections/);
    stub = await startQdrantStub();
    await expect(new QdrantReadiness(setup({ QDRANT_URL: stub.url }).connection).check()).resolves.toBeUndefined();
  });
});

describe('Qdrant filters', () => {
  it('quotes metadata keys that are not plain words', () => {
    expect(metadataKey('lang')).toBe('metadata.lang');
    expect(metadataKey('origin.country')).toBe('metadata."origin.country"');
    expect(metadataKey('2024')).toBe('metadata."2024"');
  });

  it('matches strings, integers and booleans, numbers with a fraction by a closed range, dates as instants', () => {
    const f = searchFilter(null, null, [
      {
        field: 'price',
        conditions: [
          { op: 'eq', value: 4.5 },
          { op: 'lt', value: 10 },
        ],
      },
      { field: 'tag', conditions: [{ op: 'in', values: ['a', 'b', 'a', 3, true] }] },
      { field: 'day', conditions: [{ op: 'gte', value: '2024-08-01' }] },
      { field: 'colour', conditions: [{ op: 'ne', value: 'red' }] },
    ]);
    expect(f).toEqual({
      must: [
        { key: 'metadata.price', range: { gte: 4.5, lte: 4.5 } },
        { key: 'metadata.price', range: { lt: 10 } },
        {
          should: [
            { key: 'metadata.tag', match: { any: ['a', 'b'] } },
            { key: 'metadata.tag', match: { any: [3] } },
            { key: 'metadata.tag', match: { value: true } },
          ],
        },
        { key: 'metadata.day', range: { gte: '2024-08-01T00:00:00.000Z' } },
      ],
      must_not: [{ key: 'metadata.colour', match: { value: 'red' } }],
    });
  });

  it('a range over text that is not a date is a 422 naming the field', () => {
    const e = (() => {
      try {
        searchFilter(null, null, [{ field: 'name', conditions: [{ op: 'gt', value: 'm' }] }]);
      } catch (err) {
        return err as ServiceError;
      }
      return null;
    })();
    expect(e?.code).toBe(ErrorCode.Validation);
    expect(e?.details).toEqual({ 'filter.name.$gt': ['The filter.name.$gt field must be a number or a date.'] });
  });
});
