import { Client } from 'pg';
import { Api, Running, startService } from '../../bench/lib/service';

/**
 * An ingestion replica killed with SIGKILL under load, with the default lease: another replica takes over the
 * upserts it held once their lease runs out (their heartbeat stopped), and nothing is lost or processed twice.
 * Prints the recovery time (kill to claimed again, and to completed), the figure of docs/benchmarks.md.
 */
jest.setTimeout(300000);

const item = (i: number) => ({
  id: `doc-${i}`,
  data: { title: `Document ${i}`, text: Array.from({ length: 300 }, (_, w) => `word${(i * 7 + w) % 997} topic${i}`).join(' ') },
});
const BATCH = 200;

describe('an ingestion replica killed under load', () => {
  let service: Running;
  let db: Client;

  beforeAll(async () => {
    // Small index requests keep each group in hand for a while; both replicas run the default lease.
    service = await startService('distributed', { INDEX_BATCH_ITEMS: '10', INGEST_GROUP_ITEMS: String(BATCH) });
    db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await service?.stop();
  });

  it('has its upserts taken over by the other replica once their lease runs out, nothing lost or done twice', async () => {
    const api = await Api.withProject(service);
    const post = async (b: number) =>
      (await api.call<{ data: { id: string } }>('POST', '/upserts', { items: Array.from({ length: BATCH }, (_, i) => item(b * BATCH + i)) })).data.id;
    const ids: string[] = [];
    // Enough that the first replica is still at work when the second is ready, however fast it ingests.
    for (let b = 0; b < 10; b++) ids.push(await post(b));
    // The first replica is the only one when the project's upserts are claimed, and keeps the project's chain of
    // groups while more wait behind it; the second one starts meanwhile and waits for work.
    const processing = async () => (await db.query<{ id: string; attempts: number }>(`SELECT id, attempts FROM ingestion.upserts WHERE status = 'processing' ORDER BY id`)).rows;
    const until = Date.now() + 60000;
    while ((await processing()).length === 0) {
      if (Date.now() > until) throw new Error('no upsert reached processing');
      await new Promise((r) => setTimeout(r, 20));
    }
    const second = service.spawnApp('ingestion', { INDEX_BATCH_ITEMS: '10', INGEST_GROUP_ITEMS: String(BATCH) });
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${second.opsPort}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > until) throw new Error('the second replica did not become ready');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (let b = 10; b < 14; b++) ids.push(await post(b));

    const held = await processing();
    expect(held.length).toBeGreaterThan(0);
    const [first] = service.processes.get('ingestion')!;
    const killedAt = Date.now();
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    // Load goes on through the kill: the gateway sends new upserts to the replica left.
    const posting = (async () => {
      for (let b = 14; b < 18; b++) ids.push(await post(b));
    })();

    let reclaimedAfter: number | null = null;
    let doneAfter: number | null = null;
    while (doneAfter === null) {
      const { rows } = await db.query<{ id: string; attempts: number; status: string }>('SELECT id, attempts, status FROM ingestion.upserts WHERE id = ANY($1::uuid[])', [
        held.map((h) => h.id),
      ]);
      const now = Date.now() - killedAt;
      if (reclaimedAfter === null && rows.some((r) => r.attempts > held.find((h) => h.id === r.id)!.attempts)) reclaimedAfter = now;
      if (rows.every((r) => r.status === 'completed')) doneAfter = now;
      if (now > 120000) throw new Error("the killed replica's upserts were not completed in time");
      await new Promise((r) => setTimeout(r, 50));
    }
    await posting;
    console.log(
      `ingestion replica SIGKILLed holding ${held.length} upsert(s) of ${BATCH} items: claimed again after ${
        reclaimedAfter === null ? '-' : (reclaimedAfter / 1000).toFixed(1)
      } s, completed after ${(doneAfter / 1000).toFixed(1)} s (UPSERT_LEASE_MS ${process.env.UPSERT_LEASE_MS ?? 'default'})`,
    );
    // The killed replica held them: each was attempted again by the one left.
    expect(reclaimedAfter).not.toBeNull();

    await api.waitCompleted(ids, 180000);
    const { rows } = await db.query<{ n: number; dup: number }>(
      `SELECT count(DISTINCT client_item_id)::int AS n, (count(*) - count(DISTINCT (item_id, n)))::int AS dup FROM retrieval.chunks`,
    );
    expect(rows[0]).toEqual({ n: 18 * BATCH, dup: 0 });
    const items = await api.call<{ meta: { total: number } }>('GET', '/items?per_page=1');
    expect(items.meta.total).toBe(18 * BATCH);
  });
});
