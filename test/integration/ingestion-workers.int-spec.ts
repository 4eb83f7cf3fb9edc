import { Client } from 'pg';
import { Api, Running, startService } from '../../bench/lib/service';

/**
 * Ingestion in distributed mode over the real PostgreSQL and NATS: several workers share the queue without
 * processing anything twice, and a worker killed in the middle of a batch loses nothing.
 */
jest.setTimeout(240000);

const item = (i: number, words = 120) => ({
  id: `doc-${i}`,
  data: { title: `Document ${i}`, text: Array.from({ length: words }, (_, w) => `word${(i * 7 + w) % 997} topic${i}`).join(' ') },
});

async function metric(opsPort: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

async function chunkCounts(service: Running): Promise<Map<string, number>> {
  const db = new Client({ connectionString: service.databaseUrl! });
  await db.connect();
  try {
    const { rows } = await db.query<{ client_item_id: string; n: number; dup: number }>(
      `SELECT client_item_id, count(*)::int AS n, (count(*) - count(DISTINCT (item_id, n)))::int AS dup FROM retrieval.chunks GROUP BY 1`,
    );
    expect(rows.every((r) => r.dup === 0)).toBe(true);
    return new Map(rows.map((r) => [r.client_item_id, r.n]));
  } finally {
    await db.end();
  }
}

describe('two ingestion workers', () => {
  let service: Running;
  let second: { opsPort: number };

  beforeAll(async () => {
    // Groups of up to 300 items: the long upsert below is one on its own.
    service = await startService('distributed', { INGEST_CONCURRENCY: '1', INGEST_GROUP_ITEMS: '300' });
    second = service.spawnApp('ingestion', { INGEST_CONCURRENCY: '1', INGEST_GROUP_ITEMS: '300' });
    await new Promise((r) => setTimeout(r, 3000));
  });
  afterAll(() => service.stop());

  it('share the upserts, each processed exactly once', async () => {
    // Four projects: a project's upserts are applied one at a time, in order, so workers share across projects.
    const apis = [await Api.withProject(service), await Api.withProject(service), await Api.withProject(service), await Api.withProject(service)];
    const ids: Array<[Api, string]> = [];
    for (let b = 0; b < 12; b++) {
      const on = apis[b % 4];
      const r = await on.call<{ data: { id: string } }>('POST', '/upserts', { items: Array.from({ length: 50 }, (_, i) => item(b * 50 + i)) });
      ids.push([on, r.data.id]);
    }
    for (const on of apis)
      await on.waitCompleted(
        ids.filter(([a]) => a === on).map(([, id]) => id),
        120000,
      );
    for (const [on, id] of ids) {
      const { data } = await on.call<{ data: { status: string; attempts: number } }>('GET', `/upserts/${id}`);
      expect(data).toMatchObject({ status: 'completed', attempts: 1 });
    }
    const first = (service.processes.get('ingestion') ?? [])[0];
    expect(first.exitCode).toBeNull();
    const [firstPort] = service.opsPorts.get('ingestion')!;
    const done = [await metric(firstPort, 'askdata_upserts_total{outcome="completed"}'), await metric(second.opsPort, 'askdata_upserts_total{outcome="completed"}')];
    expect(done[0] + done[1]).toBe(12);
    expect(done[0]).toBeGreaterThan(0);
    expect(done[1]).toBeGreaterThan(0);
    let total = 0;
    for (const on of apis) total += (await on.call<{ meta: { total: number } }>('GET', '/items?per_page=1')).meta.total;
    expect(total).toBe(600);
    expect((await chunkCounts(service)).size).toBe(600);
  });

  it('apply the upserts of a project in the order they were accepted: the later content of an item wins', async () => {
    const api = await Api.withProject(service);
    // A long batch that ends with the item, then a short one that changes it: the short one would finish first.
    const long = [...Array.from({ length: 300 }, (_, i) => item(1000 + i)), { id: 'changing', data: { text: 'The depot opens at seven in the morning.' } }];
    const first = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: long });
    const second = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: [{ id: 'changing', data: { text: 'The warehouse closes at noon on Fridays.' } }] });
    await api.waitCompleted([first.data.id, second.data.id], 120000);

    // The second started after the first completed, or was processed with it as one (the same attempt).
    const { data: a } = await api.call<{ data: { started_at: string; completed_at: string } }>('GET', `/upserts/${first.data.id}`);
    const { data: b } = await api.call<{ data: { started_at: string } }>('GET', `/upserts/${second.data.id}`);
    expect(b.started_at >= a.completed_at || b.started_at === a.started_at).toBe(true);
    const listed = await api.call<{ data: Array<{ data: { text: string } }> }>('GET', '/items?item_id=changing');
    expect(listed.data.map((i) => i.data.text)).toEqual(['The warehouse closes at noon on Fridays.']);
    const hits = async (text: string) => (await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text })).data.map((h) => h.item_id);
    expect(await hits('warehouse closes noon Fridays')).toContain('changing');
    expect(await hits('depot opens seven morning')).not.toContain('changing');
  });

  it('process the upserts queued behind a long one together, the later content of an item still winning', async () => {
    const api = await Api.withProject(service);
    const groupsBefore = await totalGroups();
    // The long upsert holds the ferry, so the short upserts that follow (the first changes it) wait for it to complete.
    const longItems = [...Array.from({ length: 299 }, (_, i) => item(2000 + i)), { id: 'ferry', data: { text: 'The ferry leaves at noon.' } }];
    const long = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: longItems });
    // Three short upserts queue up while the long one is processed; the last changes an item of the first.
    const short: string[] = [];
    for (const text of ['The ferry leaves at dawn.', 'The bakery sells rye bread.', 'The ferry leaves at dusk.']) {
      const n = short.length;
      const items = [{ id: n === 1 ? 'bakery' : 'ferry', data: { text } }, item(3000 + n)];
      short.push((await api.call<{ data: { id: string } }>('POST', '/upserts', { items })).data.id);
    }
    await api.waitCompleted([long.data.id, ...short], 120000);
    const started = await Promise.all(short.map(async (id) => (await api.call<{ data: { started_at: string; attempts: number } }>('GET', `/upserts/${id}`)).data));
    // One attempt for the three, begun once the long one had completed.
    expect(started.map((u) => u.attempts)).toEqual([1, 1, 1]);
    expect(new Set(started.map((u) => u.started_at)).size).toBe(1);
    const { data: first } = await api.call<{ data: { completed_at: string } }>('GET', `/upserts/${long.data.id}`);
    expect(started[0].started_at >= first.completed_at).toBe(true);
    const after = await totalGroups();
    expect(after.count - groupsBefore.count).toBe(2);
    expect(after.sum - groupsBefore.sum).toBe(4);
    const listed = await api.call<{ data: Array<{ data: { text: string } }> }>('GET', '/items?item_id=ferry');
    expect(listed.data.map((i) => i.data.text)).toEqual(['The ferry leaves at dusk.']);
    const hits = async (text: string) => (await api.call<{ data: Array<{ item_id: string; snippet: string }> }>('POST', '/search', { text })).data;
    const [ferry] = (await hits('ferry dusk')).filter((h) => h.item_id === 'ferry');
    expect(ferry.snippet).toContain('dusk');
    expect(ferry.snippet).not.toContain('dawn');
    expect((await hits('bakery rye bread')).map((h) => h.item_id)).toContain('bakery');
  });

  it('begin the next upserts of a project while the one ahead is indexed, unless they touch its items', async () => {
    const api = await Api.withProject(service);
    // Each pair: a long upsert, then a short one queued behind it; the second pair's short one changes an item of its long one.
    // The short one is accepted once the long one has begun (a long one of 300 items is a group of its own, so the two
    // are never taken as one) and before it is indexed: long items (about 25 KB each) keep that window wide.
    const long = (base: number, extra: Array<{ id: string; data: { text: string } }> = []) =>
      api.call<{ data: { id: string } }>('POST', '/upserts', { items: [...Array.from({ length: 300 }, (_, i) => item(base + i, 1500)), ...extra] });
    const timesOf = async (id: string) => (await api.call<{ data: { started_at: string; completed_at: string; attempts: number } }>('GET', `/upserts/${id}`)).data;
    const begun = async (id: string) => {
      for (const deadline = Date.now() + 60000; !(await timesOf(id)).started_at;) {
        if (Date.now() > deadline) throw new Error(`upsert ${id} not begun in 60 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    const a = await long(4000);
    await begun(a.data.id);
    const b = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: [{ id: 'harbour', data: { text: 'The harbour is calm.' } }] });
    await api.waitCompleted([a.data.id, b.data.id], 120000);
    const [ta, tb] = [await timesOf(a.data.id), await timesOf(b.data.id)];
    expect(tb.started_at > ta.started_at && tb.started_at < ta.completed_at).toBe(true);
    expect([ta.attempts, tb.attempts]).toEqual([1, 1]);

    const c = await long(5000, [{ id: 'lighthouse', data: { text: 'The lighthouse is painted red.' } }]);
    const d = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: [{ id: 'lighthouse', data: { text: 'The lighthouse is painted white.' } }] });
    await api.waitCompleted([c.data.id, d.data.id], 120000);
    const [tc, td] = [await timesOf(c.data.id), await timesOf(d.data.id)];
    expect(td.started_at >= tc.completed_at).toBe(true);
    const listed = await api.call<{ data: Array<{ data: { text: string } }> }>('GET', '/items?item_id=lighthouse');
    expect(listed.data.map((i) => i.data.text)).toEqual(['The lighthouse is painted white.']);
    const hits = (await api.call<{ data: Array<{ item_id: string; snippet: string }> }>('POST', '/search', { text: 'lighthouse painted' })).data;
    expect(hits.find((h) => h.item_id === 'lighthouse')?.snippet).toContain('white');
    expect((await api.call<{ meta: { total: number } }>('GET', '/items?per_page=1')).meta.total).toBe(602);
  });

  /** Groups processed by both workers, and the upserts in them (askdata_upsert_group_size). */
  async function totalGroups(): Promise<{ count: number; sum: number }> {
    const ports = [...service.opsPorts.get('ingestion')!, second.opsPort];
    let count = 0;
    let sum = 0;
    for (const port of new Set(ports)) {
      count += await metric(port, 'askdata_upsert_group_size_count');
      sum += await metric(port, 'askdata_upsert_group_size_sum');
    }
    return { count, sum };
  }
});

describe('a worker killed mid-batch', () => {
  let service: Running;

  beforeAll(async () => {
    // A short lease so an abandoned batch is retried quickly.
    // One upsert per attempt (INGEST_GROUP_ITEMS), so that one is in the killed worker's hands, or up to four when
    // the next had begun while the ones ahead were indexed.
    service = await startService('distributed', { UPSERT_LEASE_MS: '3000', INGEST_CONCURRENCY: '1', INDEX_BATCH_ITEMS: '10', INGEST_GROUP_ITEMS: '200' }, 4200);
  });
  afterAll(() => service.stop());

  it('loses and duplicates nothing once a worker runs again', async () => {
    const api = await Api.withProject(service);
    const ids: string[] = [];
    for (let b = 0; b < 4; b++) {
      const r = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: Array.from({ length: 200 }, (_, i) => item(b * 200 + i, 300)) });
      ids.push(r.data.id);
    }
    // Wait until the worker is inside a batch, then kill it without warning.
    const deadline = Date.now() + 30000;
    for (;;) {
      const { data } = await api.call<{ data: Array<{ status: string }> }>('GET', '/upserts?status=processing');
      if (data.length > 0) break;
      if (Date.now() > deadline) throw new Error('no upsert reached processing');
      await new Promise((r) => setTimeout(r, 20));
    }
    const [worker] = service.processes.get('ingestion')!;
    worker.kill('SIGKILL');
    await new Promise((r) => worker.once('exit', r));
    // While no ingestion process runs, its routes answer 503 rather than hang; the batch waits in the database.
    await expect(api.call('GET', '/upserts')).rejects.toThrow(/503/);
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM ingestion.upserts WHERE status = 'processing'`);
    await db.end();
    expect([1, 2, 3, 4]).toContain(rows[0].n);

    service.spawnApp('ingestion', { UPSERT_LEASE_MS: '3000', INGEST_GROUP_ITEMS: '200' });
    await api.waitCompleted(ids, 180000);
    const attempts = await Promise.all(ids.map(async (id) => (await api.call<{ data: { attempts: number } }>('GET', `/upserts/${id}`)).data.attempts));
    expect(attempts.some((a) => a > 1)).toBe(true);
    const counts = await chunkCounts(service);
    expect(counts.size).toBe(800);
    const items = await api.call<{ meta: { total: number } }>('GET', '/items?per_page=1');
    expect(items.meta.total).toBe(800);
    const hit = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'topic517', limit: 3 });
    expect(hit.data[0].item_id).toBe('doc-517');
  });
});

describe('a worker stopped with SIGTERM mid-batch', () => {
  let service: Running;

  beforeAll(async () => {
    service = await startService('distributed', { INGEST_CONCURRENCY: '1', INDEX_BATCH_ITEMS: '10', INGEST_GROUP_ITEMS: '200' }, 4400);
  });
  afterAll(() => service.stop());

  it('finishes the batch it holds, exits cleanly, and the rest completes after a restart', async () => {
    const api = await Api.withProject(service);
    const ids: string[] = [];
    for (let b = 0; b < 3; b++) {
      const r = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: Array.from({ length: 200 }, (_, i) => item(b * 200 + i, 300)) });
      ids.push(r.data.id);
    }
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    const deadline = Date.now() + 30000;
    let inFlight: string | undefined;
    while (!inFlight) {
      const { rows } = await db.query(`SELECT id FROM ingestion.upserts WHERE status = 'processing'`);
      inFlight = rows[0]?.id;
      if (Date.now() > deadline) throw new Error('no upsert reached processing');
      if (!inFlight) await new Promise((r) => setTimeout(r, 20));
    }
    const [worker] = service.processes.get('ingestion')!;
    worker.kill('SIGTERM');
    const code = await new Promise((r) => worker.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    const { rows } = await db.query(`SELECT status, attempts FROM ingestion.upserts WHERE id = $1`, [inFlight]);
    await db.end();
    expect(rows[0]).toEqual({ status: 'completed', attempts: 1 });

    service.spawnApp('ingestion', { INGEST_GROUP_ITEMS: '200' });
    await api.waitCompleted(ids, 180000);
    expect((await chunkCounts(service)).size).toBe(600);
  });
});
