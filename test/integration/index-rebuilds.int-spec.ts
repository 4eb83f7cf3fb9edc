import { Client } from 'pg';
import { ANALYZER_VERSION, ENGLISH_TERMS_SINCE } from '../../libs/common/src/text/analyzer';
import { Api, Running, startService } from '../../bench/lib/service';
import { QdrantIndex } from '../../apps/retrieval/src/index/qdrant-index';
import { QdrantStub, startQdrantStub } from '../stand-ins/qdrant-stub';
import { eventually } from './support/faults';

/**
 * Index rebuilds in distributed mode: a project indexed by an older analyzer is re-analyzed by itself from what the
 * index stores (each item's language detected anew), and when retrieval comes back with the other SEARCH_BACKEND
 * every project's index moves there, searches answered from the old index all the while, which is then removed.
 */
jest.setTimeout(240000);

const REBUILDS = { REINDEX_POLL_MS: '300', REINDEX_SETTLE_MS: '300', REINDEX_BATCH_ITEMS: '20', REINDEX_RETIRE_MS: '500', REINDEX_LEASE_MS: '3000' };
const ITEMS = 300;

interface Reindex {
  status: string;
  reason: string | null;
  index: { backend: string; analyzer: number };
  chunks_done: number;
  chunks_total: number;
  error: string | null;
}

describe('index rebuilds (distributed)', () => {
  let service: Running;
  let qdrant: QdrantStub;
  beforeAll(async () => {
    qdrant = await startQdrantStub({ keepRequests: false });
    service = await startService('distributed', { SEARCH_BACKEND: 'postgres', ...REBUILDS });
  });
  afterAll(async () => {
    await service?.stop();
    await qdrant?.close();
  });

  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${service.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${service.adminToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { data: T }).data;
  };
  const project = async (): Promise<{ id: string; api: Api }> => {
    const p = await admin<{ id: string }>('POST', '/admin/projects', { name: `rebuild-${Date.now()}-${Math.random()}`, tenancy: 'single' });
    const k = await admin<{ key: string }>('POST', `/admin/projects/${p.id}/keys`, { name: 'test' });
    return { id: p.id, api: new Api(service.url, k.key) };
  };
  const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> => {
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    try {
      return (await db.query(text, params)).rows as T[];
    } finally {
      await db.end();
    }
  };
  const firstHit = async (api: Api, text: string, language?: string): Promise<string | undefined> =>
    (await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text, ...(language ? { language } : {}) })).data[0]?.item_id;
  /** Asks about item after item until the project's rebuild is complete; every answer must name the item asked about. */
  const askThroughout = async (p: { id: string; api: Api }): Promise<{ asked: number; whileBuilding: number; last: Reindex }> => {
    let asked = 0;
    let whileBuilding = 0;
    for (let i = 0; ; i++) {
      const n = (i * 41) % ITEMS;
      expect({ n, first: await firstHit(p.api, `zq${n}x`) }).toEqual({ n, first: `part-${n}` });
      asked++;
      const now = await admin<Reindex>('GET', `/admin/projects/${p.id}/reindex`);
      if (now.status === 'building' || now.status === 'none') {
        if (now.status === 'building') whileBuilding++;
        if (i > 20000) throw new Error('the rebuild did not end');
        continue;
      }
      return { asked, whileBuilding, last: now };
    }
  };

  it('keeps as it stands the index of English chunks only that an analyzer with the same English terms wrote, and rebuilds one with another language', async () => {
    const shop = { id: 'shop', data: { title: 'The shop', text: 'The shop opens at nine in the morning and closes at six in the evening.' } };
    const english = await project();
    await english.api.upsertAll([shop]);
    const mixed = await project();
    await mixed.api.upsertAll([shop, { id: 'haus', data: { title: 'Unser Haus', text: 'Die Häuser unserer Stadt wurden im Jahre 1890 von den Bürgern der Gemeinde gebaut.' } }]);
    // Both as the oldest analyzer giving English this one's terms left them.
    await sql(`UPDATE retrieval.project_indexes SET analyzer = $2 WHERE project_id = ANY($1::uuid[])`, [[english.id, mixed.id], ENGLISH_TERMS_SINCE]);
    let rebuilt: Reindex;
    for (let i = 0; ; i++) {
      rebuilt = await admin<Reindex>('GET', `/admin/projects/${mixed.id}/reindex`);
      if (rebuilt.status === 'completed' || rebuilt.status === 'failed') break;
      if (i > 300) throw new Error('the rebuild did not end');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(rebuilt).toMatchObject({ status: 'completed', reason: 'analyzer', index: { analyzer: ANALYZER_VERSION }, chunks_total: 2, error: null });
    // The English project's index is marked as it stands, not rebuilt: in the pass that began the other's rebuild, or
    // in the next one if that pass looked for indexes to keep before the analyzer was set back.
    const kept = await eventually(
      'the English index kept',
      async () => {
        const r = await admin<Reindex>('GET', `/admin/projects/${english.id}/reindex`);
        return r.index.analyzer === ANALYZER_VERSION ? r : undefined;
      },
      10000,
    );
    expect(kept).toMatchObject({
      status: 'none',
      index: { backend: 'postgres', analyzer: ANALYZER_VERSION },
      chunks_total: 0,
    });
    const [live] = await sql<{ live_key: string }>('SELECT live_key FROM retrieval.project_indexes WHERE project_id = $1', [english.id]);
    expect(live.live_key).toBe(english.id);
    expect(await firstHit(english.api, 'opens nine')).toBe('shop');
  });

  it('re-analyzes a project written by an older analyzer from its stored chunks, then moves every project to Qdrant when SEARCH_BACKEND changes', async () => {
    const a = await project();
    await a.api.upsertAll(
      Array.from({ length: ITEMS }, (_, i) => ({ id: `part-${i}`, data: { title: `Part ${i}`, text: `Product ${i} code zq${i}x is in aisle ${i % 9}.` } })),
      { batch: 100 },
    );
    const b = await project();
    await b.api.upsertAll([
      { id: 'haus', data: { title: 'Unser Haus', text: 'Die Häuser unserer Stadt wurden im Jahre 1890 von den Bürgern der Gemeinde gebaut und stehen noch heute.' } },
      { id: 'shop', data: { title: 'The shop', text: 'The shop opens at nine in the morning and closes at six in the evening.' } },
    ]);

    // B as an index of the English-only analyzer left it: every chunk analyzed as English.
    await sql(`UPDATE retrieval.chunks SET language = 'en' WHERE project_id = $1`, [b.id]);
    await sql(`UPDATE retrieval.project_indexes SET analyzer = 1 WHERE project_id = $1`, [b.id]);
    let rebuilt: Reindex;
    for (;;) {
      rebuilt = await admin<Reindex>('GET', `/admin/projects/${b.id}/reindex`);
      if (rebuilt.status === 'completed' || rebuilt.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(rebuilt).toMatchObject({
      status: 'completed',
      reason: 'analyzer',
      index: { backend: 'postgres', analyzer: ANALYZER_VERSION },
      chunks_done: 2,
      chunks_total: 2,
      error: null,
    });
    const [live] = await sql<{ live_key: string }>('SELECT live_key FROM retrieval.project_indexes WHERE project_id = $1', [b.id]);
    expect(live.live_key).not.toBe(b.id);
    const languages = await sql<{ client_item_id: string; language: string }>(
      'SELECT client_item_id, language FROM retrieval.chunks WHERE project_id = $1 ORDER BY client_item_id',
      [live.live_key],
    );
    expect(languages).toEqual([
      { client_item_id: 'haus', language: 'de' },
      { client_item_id: 'shop', language: 'en' },
    ]);
    // German stemming now: "Haus" meets "Häuser" only through the German analysis.
    expect(await firstHit(b.api, 'Bürger', 'de')).toBe('haus');
    expect(await firstHit(b.api, 'opens nine')).toBe('shop');
    // The index it replaced is removed once no search can be reading it.
    for (let i = 0; (await sql('SELECT 1 FROM retrieval.chunks WHERE project_id = $1', [b.id])).length; i++) {
      if (i > 100) throw new Error('the replaced index was not removed');
      await new Promise((r) => setTimeout(r, 200));
    }

    // Retrieval comes back with the Qdrant backend: both projects move there, searches answered throughout.
    for (const p of service.processes.get('retrieval') ?? []) p.kill('SIGTERM');
    await Promise.all((service.processes.get('retrieval') ?? []).map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
    const { opsPort } = service.spawnApp('retrieval', { SEARCH_BACKEND: 'qdrant', QDRANT_URL: qdrant.url, ...REBUILDS });
    for (let i = 0; ; i++) {
      const ready = await fetch(`http://127.0.0.1:${opsPort}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (i > 300) throw new Error('retrieval did not come back');
      await new Promise((r) => setTimeout(r, 200));
    }
    const moved = await askThroughout(a);
    expect(moved.last).toMatchObject({ status: 'completed', reason: 'backend', index: { backend: 'qdrant', analyzer: ANALYZER_VERSION }, error: null });
    expect(moved.last.chunks_done).toBe(ITEMS);
    expect(moved.asked).toBeGreaterThan(0);
    const [aLive] = await sql<{ live_key: string }>('SELECT live_key FROM retrieval.project_indexes WHERE project_id = $1', [a.id]);
    expect(qdrant.points(QdrantIndex.collectionName(aLive.live_key))).toHaveLength(ITEMS);
    expect(await firstHit(a.api, 'zq17x')).toBe('part-17');
    // New writes go to Qdrant; the PostgreSQL index is removed.
    await a.api.upsertAll([{ id: 'late', data: { title: 'Late', text: 'The quokka figurine came late.' } }]);
    expect(await firstHit(a.api, 'quokka')).toBe('late');
    for (let i = 0; (await sql('SELECT 1 FROM retrieval.chunks WHERE project_id = $1', [a.id])).length; i++) {
      if (i > 100) throw new Error('the PostgreSQL index was not removed');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (;;) {
      const bNow = await admin<Reindex>('GET', `/admin/projects/${b.id}/reindex`);
      if (bNow.status === 'building') continue;
      expect(bNow).toMatchObject({ status: 'completed', reason: 'backend', index: { backend: 'qdrant', analyzer: ANALYZER_VERSION } });
      break;
    }
    expect(await firstHit(b.api, 'Bürger', 'de')).toBe('haus');
  });
});
