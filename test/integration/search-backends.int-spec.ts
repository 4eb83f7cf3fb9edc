import { INestApplication, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ChunkInput, ErrorCode, FieldFilter, RetrievedChunk, Scope, Subjects } from '@askdata/contracts';
import { BusClient, createDataSource, loadConfig, migrate, ServiceError, startService } from '@askdata/common';
import { REINDEX_SHARED } from '../../apps/retrieval/src/index/index-rebuilds';
import { QdrantModule } from '../../apps/retrieval/src/index/qdrant-connection';
import { SEARCH_INDEX, SearchIndex } from '../../apps/retrieval/src/index/search-index';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';
import { RetrievalModule, searchIndexProviders } from '../../apps/retrieval/src/retrieval.module';
import { EmbeddingApi, EmbeddingStub, startEmbeddingStub } from '../stand-ins/embedding-stubs';
import { QdrantStub, startQdrantStub } from '../stand-ins/qdrant-stub';

/**
 * One behavioural suite, the same cases against every index backend reachable here: PostgreSQL (the local
 * server), Qdrant (the local stand-in), and Qdrant with each embedding provider (hybrid: sparse and dense fused).
 * Every case indexes a fresh project.
 */
jest.setTimeout(60000);
beforeAll(() => Logger.overrideLogger(false));

/** The server the other integration tests use: PG_URL, else the local one. */
const ADMIN_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = `askdata_retrieval_backends_test_${process.pid}`;
const DB_URL = Object.assign(new URL(ADMIN_URL), { pathname: `/${DB}` }).toString();
let ds: DataSource;

beforeAll(async () => {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  ds = createDataSource(retrievalDatabase, { url: DB_URL, poolSize: 4, applicationName: 'retrieval-backends-test' });
  await ds.initialize();
  await migrate(ds, retrievalDatabase.schema);
});

afterAll(async () => {
  await ds?.destroy();
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.end();
});

interface Doc {
  id: string;
  title: string;
  chunks: string[];
  collection: string;
  tenant: number;
  metadata?: Record<string, unknown>;
  language?: string;
}

/** Tenant 1 holds three items that all say "grow"; tenant 2 one about cider; tenant 3 a guide in three chunks. */
const CORPUS: Doc[] = [
  {
    id: 'apples',
    title: 'Apple orchards',
    collection: 'fruit',
    tenant: 1,
    chunks: ['Apples grow in orchards. Harvest the apples in autumn, when apples come off the branch easily.'],
    metadata: { price: 3, colour: 'red', tags: ['sweet', 'crisp'], organic: true, picked: '2024-09-15', 'origin.country': 'FR', 'Größe [cm]': 8 },
  },
  {
    id: 'pears',
    title: 'Pear trees',
    collection: 'fruit',
    tenant: 1,
    chunks: ['Pears soften after picking. Pear trees grow in orchards too.'],
    metadata: { price: 4.5, colour: 'green', tags: ['sweet'], organic: false, picked: '2024-08-20', 'origin.country': 'IT', 'Größe [cm]': 11 },
  },
  {
    id: 'carrots',
    title: 'Carrot beds',
    collection: 'vegetables',
    tenant: 1,
    chunks: ['Carrots grow underground in loose soil; pull carrots in summer.'],
    metadata: { price: 1, colour: 'orange', tags: ['crunchy'], organic: true, picked: '2024-07-01' },
  },
  {
    id: 'cider',
    title: 'Apple cider',
    collection: 'fruit',
    tenant: 2,
    chunks: ['Cider is pressed from apples picked in orchards.'],
    metadata: { price: 6, colour: 'gold' },
  },
  {
    id: 'guide',
    title: 'Orchard guide',
    collection: 'guides',
    tenant: 3,
    chunks: ['Prune the trees in late winter.', 'Orchards, orchards everywhere: plan orchards in rows, and keep orchards mown.', 'Water young trees every week.'],
  },
];

interface Backend {
  name: string;
  qdrant: boolean;
  embeddings: EmbeddingApi | null;
}

const BACKENDS: Backend[] = [
  { name: 'PostgreSQL', qdrant: false, embeddings: null },
  { name: 'Qdrant', qdrant: true, embeddings: null },
  { name: 'Qdrant + OpenAI-compatible embeddings', qdrant: true, embeddings: 'openai' },
  { name: 'Qdrant + Voyage AI embeddings', qdrant: true, embeddings: 'voyage' },
];

describe.each(BACKENDS)('search on $name', (backend) => {
  let index: SearchIndex;
  let qdrant: QdrantStub | null = null;
  let embeddings: EmbeddingStub | null = null;
  let close = async () => undefined as void;

  beforeAll(async () => {
    if (backend.qdrant) qdrant = await startQdrantStub({ apiKey: 'test-key' });
    if (backend.embeddings) embeddings = await startEmbeddingStub(backend.embeddings, { apiKey: 'emb-key', dimensions: 48 });
    const config = loadConfig(retrievalSettings, {
      SEARCH_BACKEND: backend.qdrant ? 'qdrant' : 'postgres',
      ...(qdrant ? { QDRANT_URL: qdrant.url, QDRANT_API_KEY: 'test-key' } : {}),
      ...(embeddings
        ? { EMBEDDING_PROVIDER: embeddings.kind, EMBEDDING_URL: embeddings.url, EMBEDDING_MODEL: 'stub-model', EMBEDDING_API_KEY: 'emb-key', EMBEDDING_BATCH_SIZE: '4' }
        : {}),
    });
    const moduleRef = await Test.createTestingModule({
      imports: backend.qdrant ? [QdrantModule.forRoot(config)] : [],
      providers: [...searchIndexProviders(config), { provide: DataSource, useValue: ds }, { provide: REINDEX_SHARED, useValue: false }],
    }).compile();
    index = moduleRef.get<SearchIndex>(SEARCH_INDEX);
    expect(index.backend).toBe(backend.qdrant ? 'qdrant' : 'postgres');
    close = async () => {
      await moduleRef.close();
      await qdrant?.close();
      await embeddings?.close();
    };
  });
  afterAll(() => close());

  afterEach(() => {
    // A request real Qdrant or the embeddings API would refuse fails the case, even if nothing noticed.
    expect(qdrant?.problems() ?? []).toEqual([]);
    expect(embeddings?.problems() ?? []).toEqual([]);
  });

  /** A fresh project holding `docs`; returns the scope and each doc's service-side item id. */
  async function project(docs: Doc[] = CORPUS) {
    const scope: Scope = { projectId: randomUUID(), tenancy: 'multi' };
    const ids = new Map(docs.map((d) => [d.id, randomUUID()]));
    const inputs = docs.map((d) => input(d, ids.get(d.id)!));
    expect(await index.replace(scope, inputs)).toBe(docs.reduce((n, d) => n + d.chunks.length, 0));
    const search = (text: string, over: { tenant?: number | null; collections?: string[] | null; filters?: FieldFilter[]; limit?: number; languages?: string[] } = {}) =>
      index.search({
        scope,
        text,
        tenant: over.tenant ?? null,
        collections: over.collections ?? null,
        filters: over.filters ?? [],
        limit: over.limit ?? 10,
        languages: over.languages,
      });
    return { scope, ids, inputs, search };
  }

  const input = (d: Doc, itemId: string): ChunkInput => ({
    itemId,
    clientItemId: d.id,
    collection: d.collection,
    tenant: d.tenant,
    url: `https://example.test/${d.id}`,
    metadata: d.metadata ?? {},
    title: d.title,
    chunks: d.chunks,
    ...(d.language ? { language: d.language } : {}),
  });
  const names = (hits: RetrievedChunk[]) => hits.map((h) => h.item_id);
  const sorted = (hits: RetrievedChunk[]) => names(hits).sort();
  /**
   * The items that share words with the question, best first. Hybrid search may add items that share none
   * (the nearest by meaning) after them; lexical search returns exactly these.
   */
  const expectMatches = (hits: RetrievedChunk[], expected: string[]) => {
    if (backend.embeddings) expect(names(hits).slice(0, expected.length)).toEqual(expected);
    else expect(names(hits)).toEqual(expected);
  };

  it("ranks the item about the question's topic first, and returns what a hit needs", async () => {
    const p = await project();
    const hits = await p.search('When are apples harvested?');
    expect(hits[0]).toMatchObject({
      id: p.ids.get('apples'),
      item_id: 'apples',
      collection: 'fruit',
      tenant: 1,
      url: 'https://example.test/apples',
      metadata: CORPUS[0].metadata,
      chunk: 0,
      text: CORPUS[0].chunks[0],
    });
    expect(hits[0].snippet).toContain('Harvest');
    expect(hits[0].score).toBeGreaterThan(0);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect((await p.search('carrots in loose soil'))[0].item_id).toBe('carrots');
  });

  it('forgets a deleted item (no chunks left) entirely: the rest score as in an index that never held it', async () => {
    const p = await project();
    const removed = CORPUS.filter((d) => d.id === 'apples' || d.id === 'guide');
    // A delete removes an item by replacing it with no chunks; twice, as a retried delete would.
    for (let i = 0; i < 2; i++)
      await index.replace(
        p.scope,
        removed.map((d) => ({ ...input(d, p.ids.get(d.id)!), chunks: [] })),
      );
    const fresh = await project(CORPUS.filter((d) => !removed.includes(d)));
    for (const question of ['apples orchards grow', 'Which trees grow in orchards?', 'prune trees in winter']) {
      const after = await p.search(question);
      expect(names(after)).not.toContain('apples');
      expect(names(after)).not.toContain('guide');
      // Same items, same scores: document frequencies, chunk count and average length no longer count them. (Fused
      // with dense ranks, items that tie in meaning may trade places, as their ids differ between the two projects.)
      const scores = (hits: RetrievedChunk[]) => hits.map((h) => [h.item_id, h.score.toFixed(6)]);
      const tied = (hits: RetrievedChunk[]) => [sorted(hits), hits.map((h) => h.score.toFixed(6))];
      const expected = await fresh.search(question);
      if (backend.embeddings) expect(tied(after)).toEqual(tied(expected));
      else expect(scores(after)).toEqual(scores(expected));
    }
  });

  it('indexes each chunk in its language and meets it with the question analyzed in that language', async () => {
    const p = await project([
      { id: 'museum', title: 'Эрмитаж', collection: 'sights', tenant: 1, language: 'ru', chunks: ['Музей был основан Екатериной Второй в 1764 году.'] },
      { id: 'palace', title: '故宫', collection: 'sights', tenant: 1, language: 'zh', chunks: ['故宫博物院成立于1925年。'] },
      { id: 'tower', title: 'Eiffel Tower', collection: 'sights', tenant: 1, chunks: ['The tower was completed in 1889.'] },
    ]);
    const languages = ['ru', 'zh', 'en'];
    // "основал музеи": other forms of the words the chunk holds, one stem each in Russian.
    const museum = await p.search('Кто основал музеи?', { languages });
    expectMatches(museum, ['museum']);
    expect(museum[0]).toMatchObject({ language: 'ru' });
    // Hybrid search finds it by meaning whatever the terms; lexical search only through the Russian analysis.
    if (!backend.embeddings) expect(names(await p.search('Кто основал музеи?', { languages: ['en'] }))).not.toContain('museum');
    expect((await p.search('故宫博物院是哪一年成立的？', { languages }))[0]).toMatchObject({ item_id: 'palace', language: 'zh' });
    expect((await p.search('When was the tower completed?', { languages }))[0]).toMatchObject({ item_id: 'tower', language: 'en' });
  });

  it("outside English, meets a chunk's word written with another ending, and forgets it with its item", async () => {
    const arabic: Doc[] = [
      { id: 'revolution', title: 'تاريخ فرنسا', collection: 'history', tenant: 1, language: 'ar', chunks: ['بدأت الثورة الفرنسية عام 1789 وانتهت عام 1799.'] },
      { id: 'war', title: 'تاريخ أوروبا', collection: 'history', tenant: 1, language: 'ar', chunks: ['بدأت الحرب العالمية الأولى عام 1914 وانتهت عام 1918.'] },
      { id: 'nile', title: 'نهر النيل', collection: 'history', tenant: 1, language: 'ar', chunks: ['نهر النيل أطول نهر في أفريقيا.'] },
    ];
    const p = await project(arabic);
    // "الثوره الفرنسيه": ه where the chunk writes ة, so the stems differ; the words' runs of characters still meet.
    const question = 'الثوره الفرنسيه';
    expect(names(await p.search(question, { languages: ['ar'] }))[0]).toBe('revolution');
    // Read as English, the question has no runs of characters and meets nothing.
    if (!backend.embeddings) expect(await p.search(question, { languages: ['en'] })).toEqual([]);
    await index.replace(p.scope, [{ ...input(arabic[0], p.ids.get('revolution')!), chunks: [] }]);
    const fresh = await project(arabic.slice(1));
    const scores = (hits: RetrievedChunk[]) => hits.map((h) => [h.item_id, h.score.toFixed(6)]);
    if (!backend.embeddings) expect(scores(await p.search('بدأت الحرب', { languages: ['ar'] }))).toEqual(scores(await fresh.search('بدأت الحرب', { languages: ['ar'] })));
  });

  it("gives an English question over English and German chunks no German runs of characters to favour German's", async () => {
    const mixed: Doc[] = [
      { id: 'berlin-en', title: 'Berlin', collection: 'cities', tenant: 1, language: 'en', chunks: ['About 3.7 million people live in Berlin.'] },
      { id: 'berlin-de', title: 'Berlin', collection: 'cities', tenant: 1, language: 'de', chunks: ['Berlin hat 3,7 Millionen Einwohner.'] },
      { id: 'berlinale', title: 'Berlinale', collection: 'cities', tenant: 1, language: 'de', chunks: ['Berlinale Filmfestspiele Programm.'] },
      ...['Paris', 'Rome', 'Madrid', 'Vienna'].map((city) => ({
        id: city,
        title: city,
        collection: 'cities',
        tenant: 1,
        language: 'en',
        chunks: [`${city} is a capital in Europe.`],
      })),
    ];
    const p = await project(mixed);
    const hits = names(await p.search('How many people live in Berlin?', { languages: ['en', 'de'] }));
    // (With embeddings, the German chunk of the same meaning may come first.)
    if (!backend.embeddings) expect(hits.slice(0, 2)).toEqual(['berlin-en', 'berlin-de']);
    expect(hits.slice(0, 2)).toContain('berlin-en');
    // "Berlinale" shares runs with "Berlin" only: it is not found by them.
    if (!backend.embeddings) expect(hits).not.toContain('berlinale');
  });

  it('keeps tenants apart: the tenant filter is part of the query', async () => {
    const p = await project();
    const two = await p.search('apples', { tenant: 2 });
    expect(names(two)).toEqual(['cider']);
    const one = await p.search('apples', { tenant: 1 });
    expectMatches(one, ['apples']);
    expect(one.every((h) => h.tenant === 1)).toBe(true);
    expect(names(await p.search('apples', { tenant: 4 }))).toEqual([]);
    expect(sorted(await p.search('apples cider', { tenant: null }))).toEqual(expect.arrayContaining(['apples', 'cider']));
  });

  it('keeps projects apart', async () => {
    const a = await project();
    const b = await project([{ id: 'b-apples', title: 'Apples', collection: 'fruit', tenant: 1, chunks: ['Apples in another project.'] }]);
    expect(names(await b.search('apples orchards harvest'))).toEqual(['b-apples']);
    expect(names(await a.search('apples', { tenant: 1 }))).not.toContain('b-apples');
    const empty = await project([]);
    expect(await empty.search('apples')).toEqual([]);
  });

  it('filters by collection', async () => {
    const p = await project();
    expect(names(await p.search('grow', { tenant: 1, collections: ['vegetables'] }))).toEqual(['carrots']);
    expect(sorted(await p.search('grow', { tenant: 1, collections: ['fruit', 'vegetables'] }))).toEqual(['apples', 'carrots', 'pears']);
    expect(names(await p.search('grow', { tenant: 1, collections: ['guides'] }))).toEqual([]);
  });

  it.each<[string, FieldFilter[], string[]]>([
    ['equality', [{ field: 'colour', conditions: [{ op: 'eq', value: 'green' }] }], ['pears']],
    ['$in', [{ field: 'colour', conditions: [{ op: 'in', values: ['red', 'orange', 'blue'] }] }], ['apples', 'carrots']],
    ['an element of an array', [{ field: 'tags', conditions: [{ op: 'eq', value: 'crisp' }] }], ['apples']],
    ['$in on an array', [{ field: 'tags', conditions: [{ op: 'in', values: ['crunchy', 'crisp'] }] }], ['apples', 'carrots']],
    ['a number range', [{ field: 'price', conditions: [{ op: 'gte', value: 3 }] }], ['apples', 'pears']],
    ['an open range below', [{ field: 'price', conditions: [{ op: 'lt', value: 2 }] }], ['carrots']],
    [
      'a closed range',
      [
        {
          field: 'price',
          conditions: [
            { op: 'gt', value: 1 },
            { op: 'lte', value: 4.5 },
          ],
        },
      ],
      ['apples', 'pears'],
    ],
    ['a number with a fraction', [{ field: 'price', conditions: [{ op: 'eq', value: 4.5 }] }], ['pears']],
    ['$ne', [{ field: 'colour', conditions: [{ op: 'ne', value: 'red' }] }], ['carrots', 'pears']],
    ['a boolean', [{ field: 'organic', conditions: [{ op: 'eq', value: true }] }], ['apples', 'carrots']],
    ['a date range', [{ field: 'picked', conditions: [{ op: 'gte', value: '2024-08-01' }] }], ['apples', 'pears']],
    ['a field name with a dot', [{ field: 'origin.country', conditions: [{ op: 'eq', value: 'FR' }] }], ['apples']],
    ['a field name with a space, brackets and accents', [{ field: 'Größe [cm]', conditions: [{ op: 'gt', value: 10 }] }], ['pears']],
    [
      'two fields',
      [
        { field: 'organic', conditions: [{ op: 'eq', value: true }] },
        { field: 'price', conditions: [{ op: 'gt', value: 2 }] },
      ],
      ['apples'],
    ],
    ['nothing matching', [{ field: 'colour', conditions: [{ op: 'eq', value: 'purple' }] }], []],
  ])('filters metadata: %s', async (_name, filters, expected) => {
    const p = await project();
    expect(sorted(await p.search('grow', { tenant: 1, filters }))).toEqual(expected);
  });

  it('re-upserting an item replaces its content: old words no longer find it', async () => {
    const p = await project();
    const apples = p.inputs.find((i) => i.clientItemId === 'apples')!;
    const bananas = { ...apples, title: 'Banana plantations', chunks: ['Bananas ripen on tropical plantations.'] };
    expect(await index.replace(p.scope, [bananas])).toBe(1);
    expect(await index.replace(p.scope, [bananas])).toBe(1);
    const hits = await p.search('bananas plantations', { tenant: 1 });
    expect(hits[0]).toMatchObject({ item_id: 'apples', text: 'Bananas ripen on tropical plantations.' });
    expect(names(hits).filter((n) => n === 'apples')).toHaveLength(1);
    const old = await p.search('harvest autumn branch', { tenant: 1 });
    expect(old.filter((h) => /harvest|autumn|branch/i.test(h.text))).toEqual([]);
    if (!backend.embeddings) expect(old).toEqual([]); // hybrid search also returns the nearest items by meaning
  });

  it('re-upserting an item with fewer chunks drops the others', async () => {
    const p = await project();
    const guide = p.inputs.find((i) => i.clientItemId === 'guide')!;
    await index.replace(p.scope, [{ ...guide, chunks: ['Prune the trees in late winter.'] }]);
    const hits = await p.search('water young trees weekly', { tenant: 3 });
    expect(hits.map((h) => [h.item_id, h.chunk])).toEqual([['guide', 0]]);
    expect(hits[0].text).not.toMatch(/water/i);
  });

  it('an item replaced with no chunks is removed', async () => {
    const p = await project();
    const pears = p.inputs.find((i) => i.clientItemId === 'pears')!;
    expect(await index.replace(p.scope, [{ ...pears, chunks: [] }])).toBe(0);
    expect(await index.replace(p.scope, [{ ...pears, chunks: [] }])).toBe(0);
    const hits = await p.search('pear trees soften after picking', { tenant: 1 });
    expect(names(hits)).not.toContain('pears');
    if (!backend.embeddings) expect(hits).toEqual([]);
  });

  it('returns one row per item, its best chunk, up to the limit', async () => {
    const p = await project();
    const guide = await p.search('orchards', { tenant: 3 });
    expect(guide.map((h) => [h.item_id, h.chunk])).toEqual([['guide', 1]]);
    const all = await p.search('orchards', { limit: 10 });
    expect(new Set(names(all)).size).toBe(all.length);
    expect(names(all)).toEqual(expect.arrayContaining(['guide', 'apples', 'pears', 'cider']));
    const two = await p.search('orchards', { limit: 2 });
    expect(two).toHaveLength(2);
    expect(new Set(names(two)).size).toBe(2);
  });

  it('finds nothing for a question of stopwords only', async () => {
    const p = await project();
    expect(await p.search('what is the', { tenant: 1 })).toEqual([]);
  });
});

describe('the retrieval service on Qdrant with embeddings', () => {
  let app: INestApplication;
  let qdrant: QdrantStub;
  let openai: EmbeddingStub;
  let health: string;

  beforeAll(async () => {
    qdrant = await startQdrantStub();
    openai = await startEmbeddingStub('openai');
    const config = loadConfig(retrievalSettings, {
      SEARCH_BACKEND: 'qdrant',
      QDRANT_URL: qdrant.url,
      QDRANT_TIMEOUT_MS: '1000',
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_URL: openai.url,
      EMBEDDING_MODEL: 'stub',
      EMBEDDING_RETRIES: '1',
    });
    const bus = { kind: 'in-process' as const, timeoutMs: 10000 };
    const module = RetrievalModule.forRoot({ bus, database: { url: DB_URL, poolSize: 2, applicationName: 'retrieval-service-test' }, config });
    app = await startService(module, 'retrieval', bus, false, { port: 0, host: '127.0.0.1' });
    health = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/health/ready`;
  });
  afterAll(async () => {
    await app?.close();
    await openai?.close();
    await qdrant?.close();
  });

  it('indexes and searches over the bus; a failing embeddings API is a 503 (UNAVAILABLE), not a 500', async () => {
    const bus = app.get(BusClient);
    const scope: Scope = { projectId: randomUUID(), tenancy: 'single' };
    const items = [input('apples', 'Apples grow in orchards.'), input('carrots', 'Carrots grow in soil.')];
    expect(await bus.request(Subjects.retrieval.chunksReplace, { scope, items })).toEqual({ chunks: 2 });
    const search = { scope, text: 'apples orchards', collections: null, tenant: null, filter: null, limit: 5 };
    expect((await bus.request(Subjects.retrieval.search, search))[0].item_id).toBe('apples');
    openai.failNext(500, 2);
    const e = await bus.request(Subjects.retrieval.search, search).catch((err: unknown) => err as ServiceError);
    expect(e).toMatchObject({ code: ErrorCode.Unavailable, message: expect.stringMatching(/embedding provider \(openai\).*500/) });
    expect(qdrant.problems()).toEqual([]);
    expect(openai.problems()).toEqual([]);
  });

  it('is ready only while Qdrant answers', async () => {
    const up = await fetch(health);
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, bus: { status: 'up' }, qdrant: { status: 'up' } } });
    const report = await app.get(BusClient).request(Subjects.retrieval.health, {});
    expect(report).toMatchObject({ status: 'ok', details: { qdrant: { status: 'up' } } });

    await qdrant.close();
    const down = await fetch(health);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'error', details: { qdrant: { status: 'down', message: expect.stringMatching(/Qdrant at/) } } });
    expect(await app.get(BusClient).request(Subjects.retrieval.health, {})).toMatchObject({ status: 'error', details: { qdrant: { status: 'down' } } });
  });

  function input(id: string, text: string): ChunkInput {
    return { itemId: randomUUID(), clientItemId: id, collection: 'default', tenant: null, url: null, metadata: {}, title: '', chunks: [text] };
  }
});
