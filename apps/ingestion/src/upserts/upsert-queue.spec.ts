import { uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { embeddedDatabase, EmbeddedDatabase } from '../../../../test/support/embedded-database';
import { IngestionConfig } from '../ingestion.config';
import { ingestionDatabase } from '../ingestion.database';
import { AcceptedBatches } from './accepted-batches';
import { BatchVacuum } from './batch-vacuum';
import { STORED_BEFORE_FAILING, UpsertQueue } from './upsert-queue';

const base = { UPSERT_LEASE_MS: 60000, UPSERT_MAX_ATTEMPTS: 3, INGEST_GROUP_ITEMS: 10 };

interface Row {
  id: string;
  status: string;
  attempts: number;
  error: string | null;
  lease_until: Date | null;
}

describe('upsert queue (embedded PostgreSQL)', () => {
  let db: EmbeddedDatabase;
  let ds: DataSource;
  const projectA = uuidv7();
  const projectB = uuidv7();

  // A fresh embedded database starts in seconds, more on a busy machine.
  beforeAll(async () => {
    db = await embeddedDatabase(ingestionDatabase);
    ds = db.ds;
  }, 180000);
  afterAll(() => db.stop());
  beforeEach(() => ds.query('TRUNCATE ingestion.upserts, ingestion.upsert_batches, ingestion.webhook_outbox'));

  function queue(config: Partial<typeof base> = {}, accepted = new AcceptedBatches()): UpsertQueue {
    return new UpsertQueue(ds, { ...base, ...config } as IngestionConfig, accepted, new BatchVacuum(ds));
  }

  /** Stores a queued upsert of `project` whose batch holds these item ids; ids grow in acceptance order. */
  async function enqueue(project: string, items: string[]): Promise<string> {
    const id = uuidv7();
    await ds.query(
      `INSERT INTO ingestion.upserts (id, project_id, collection, status, items_count, available_at, created_at)
       VALUES ($1, $2, 'default', 'queued', $3, now(), now())`,
      [id, project, items.length],
    );
    const payload = { tenancy: { kind: 'single' }, collection: null, items: items.map((i) => ({ id: i, text: i })) };
    await ds.query('INSERT INTO ingestion.upsert_batches (upsert_id, payload) VALUES ($1, $2)', [id, JSON.stringify(payload)]);
    return id;
  }

  async function row(id: string): Promise<Row> {
    const [r] = await ds.query<Row[]>('SELECT id, status, attempts, error, lease_until FROM ingestion.upserts WHERE id = $1', [id]);
    return r;
  }

  /** Lets the lease of a claimed upsert run out. */
  const expire = (id: string) => ds.query(`UPDATE ingestion.upserts SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);

  it("claims a project's oldest upsert with its batch, and no other upsert of that project while it is in hand", async () => {
    const q = queue({ INGEST_GROUP_ITEMS: 1 });
    const a1 = await enqueue(projectA, ['x']);
    const a2 = await enqueue(projectA, ['y']);
    const b1 = await enqueue(projectB, ['z']);
    const [first] = await q.claim(new Set());
    expect(first).toMatchObject({ id: a1, attempts: 1, project_id: projectA });
    expect(first.batch?.items.map((i) => i.id)).toEqual(['x']);
    expect((await q.claim(new Set())).map((c) => c.id)).toEqual([b1]);
    expect(await q.claim(new Set())).toEqual([]);
    expect((await row(a2)).status).toBe('queued');
    expect(await q.depth()).toEqual({ queued: 1, processing: 2 });
  });

  it('claims the first attempts right behind the head with it, in order, up to INGEST_GROUP_ITEMS items', async () => {
    const ids = [await enqueue(projectA, ['a', 'b', 'c']), await enqueue(projectA, ['d', 'e']), await enqueue(projectA, ['f', 'g', 'h', 'i', 'j', 'k'])];
    const claims = await queue({ INGEST_GROUP_ITEMS: 6 }).claim(new Set());
    expect(claims.map((c) => c.id)).toEqual(ids.slice(0, 2));
    expect(claims.every((c) => c.attempts === 1 && c.batch !== undefined)).toBe(true);
    expect((await row(ids[2])).status).toBe('queued');
  });

  it('groups nothing when an upsert gets a single attempt', async () => {
    const a1 = await enqueue(projectA, ['x']);
    await enqueue(projectA, ['y']);
    expect((await queue({ UPSERT_MAX_ATTEMPTS: 1 }).claim(new Set())).map((c) => c.id)).toEqual([a1]);
  });

  it('takes over an expired lease as a new attempt, unless the lease is held by this process', async () => {
    const q = queue();
    const a1 = await enqueue(projectA, ['x']);
    await q.claim(new Set());
    await expire(a1);
    expect(await q.claim(new Set([a1]))).toEqual([]);
    const [again] = await q.claim(new Set());
    expect(again).toMatchObject({ id: a1, attempts: 2 });
  });

  it('fences writes by attempt: a stale attempt neither completes, renews nor fails the upsert', async () => {
    const q = queue();
    const a1 = await enqueue(projectA, ['x']);
    const [stale] = await q.claim(new Set());
    await expire(a1);
    const [current] = await q.claim(new Set());
    expect(await q.renew([stale])).toEqual([a1]);
    await q.complete([stale]);
    await q.fail(stale, { reason: 'late', final: true, delayMs: 0, outage: false, outageSeen: false, stored: false });
    expect(await row(a1)).toMatchObject({ status: 'processing', attempts: 2, error: null });
    expect(await q.renew([current])).toEqual([]);
    await q.complete([current]);
    expect(await row(a1)).toMatchObject({ status: 'completed', lease_until: null });
  });

  it('deletes the stored batch of an upsert it completes, and keeps that of an upsert still in processing', async () => {
    const q = queue();
    const done = await enqueue(projectA, ['x']);
    const pending = await enqueue(projectB, ['y']);
    const claims = await q.claim(new Set());
    const [other] = await q.claim(new Set());
    expect(claims.map((c) => c.id)).toEqual([done]);
    expect(other.id).toBe(pending);
    await q.complete(claims);
    const kept = await ds.query<Array<{ upsert_id: string }>>('SELECT upsert_id FROM ingestion.upsert_batches');
    expect(kept.map((r) => r.upsert_id)).toEqual([pending]);
  });

  it('keeps a retried upsert processing until its backoff ends, and fails the last attempt saying its items were stored', async () => {
    const q = queue();
    const a1 = await enqueue(projectA, ['x']);
    const [claim] = await q.claim(new Set());
    await q.fail(claim, { reason: 'boom', final: false, delayMs: 60000, outage: false, outageSeen: false, stored: true });
    const retried = await row(a1);
    expect(retried).toMatchObject({ status: 'processing', error: 'boom' });
    expect(retried.lease_until!.getTime()).toBeGreaterThan(Date.now() + 30000);
    expect(await q.claim(new Set())).toEqual([]);
    await expire(a1);
    const [last] = await q.claim(new Set());
    await q.fail(last, { reason: 'boom again', final: true, delayMs: 0, outage: false, outageSeen: false, stored: false });
    expect(await row(a1)).toMatchObject({ status: 'failed', error: `boom again${STORED_BEFORE_FAILING}`, lease_until: null });
  });

  it('does not count an attempt that found a service unavailable', async () => {
    const q = queue({ UPSERT_MAX_ATTEMPTS: 1 });
    const a1 = await enqueue(projectA, ['x']);
    const [claim] = await q.claim(new Set());
    await q.fail(claim, { reason: 'down', final: false, delayMs: 0, outage: true, outageSeen: true, stored: false });
    await expire(a1);
    await q.sweep();
    expect((await row(a1)).status).toBe('processing');
    expect(await q.claim(new Set())).toEqual([expect.objectContaining({ id: a1, attempts: 2, outage_attempts: 1 })]);
  });

  it('sweeps an upsert abandoned after its last attempt as failed, and leaves one with attempts left', async () => {
    const q = queue({ UPSERT_MAX_ATTEMPTS: 1 });
    const a1 = await enqueue(projectA, ['x']);
    const b1 = await enqueue(projectB, ['y']);
    await queue().claim(new Set());
    await q.claim(new Set());
    await expire(a1);
    await ds.query('UPDATE ingestion.upserts SET attempts = 0 WHERE id = $1', [b1]);
    await expire(b1);
    // Told (and so announced to the gateways' list caches) while still in progress, then failed.
    const told: Array<[string, string[], string]> = [];
    await q.sweep(async (project, ids) => void told.push([project, ids, (await row(ids[0])).status]));
    expect(told).toEqual([[projectA, [a1], 'processing']]);
    expect(await row(a1)).toMatchObject({ status: 'failed', error: 'The upsert was abandoned by its worker too many times.' });
    expect((await row(b1)).status).toBe('processing');
  });

  it('claims the group behind those in flight only when it touches none of their items', async () => {
    const q = queue({ INGEST_GROUP_ITEMS: 1 });
    await enqueue(projectA, ['x']);
    const a2 = await enqueue(projectA, ['y']);
    const a3 = await enqueue(projectA, ['x']);
    const head = await q.claim(new Set());
    const inFlight = new Set(head.map((c) => c.id));
    const behind = await q.claimBehind(head, inFlight);
    expect(behind.map((c) => c.id)).toEqual([a2]);
    behind.forEach((c) => inFlight.add(c.id));
    // a3 rewrites x, which the head holds: it waits.
    expect(await q.claimBehind([...head, ...behind], inFlight)).toEqual([]);
    expect((await row(a3)).status).toBe('queued');
    // Not this process's upserts in front of it: nothing.
    expect(await q.claimBehind(behind, new Set([a2]))).toEqual([]);
  });

  it('writes the webhook event of an upsert that completes or fails for good with the change, the receipt as the API shows it', async () => {
    const q = queue({ INGEST_GROUP_ITEMS: 1 });
    const a1 = await enqueue(projectA, ['x']);
    const b1 = await enqueue(projectB, ['y']);
    const claimed = await q.claim(new Set());
    await q.complete(claimed);
    const [other] = await q.claim(new Set());
    const attempt = { reason: 'bad data', delayMs: 0, outage: false, outageSeen: false, stored: false };
    // A failure that will be retried is no event; the last one is.
    await q.fail(other, { ...attempt, final: false });
    const events = async () =>
      ds.query<Array<{ project_id: string; type: string; resource: string; data: string }>>('SELECT project_id, type, resource, data FROM ingestion.webhook_outbox ORDER BY id');
    expect((await events()).map((e) => e.type)).toEqual(['upsert.completed']);
    await q.fail(other, { ...attempt, final: true });
    const written = await events();
    expect(written.map((e) => [e.project_id, e.type, e.resource])).toEqual([
      [claimed[0].project_id, 'upsert.completed', 'upsert'],
      [other.project_id, 'upsert.failed', 'upsert'],
    ]);
    expect(JSON.parse(written[0].data)).toMatchObject({ id: claimed[0].id, status: 'completed', items_count: 1, kind: 'upsert', attempts: 1 });
    expect(JSON.parse(written[1].data)).toMatchObject({ id: other.id, status: 'failed', error: 'bad data' });
    expect([a1, b1].sort()).toEqual([claimed[0].id, other.id].sort());
  });
});
