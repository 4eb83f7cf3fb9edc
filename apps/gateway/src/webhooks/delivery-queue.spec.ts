import { OutboxEvent } from '@askdata/contracts';
import { isoMicro, uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { embeddedDatabase, EmbeddedDatabase } from '../../../../test/support/embedded-database';
import { GatewayConfig } from '../gateway.config';
import { gatewayDatabase } from '../gateway.database';
import { ClaimedDelivery, DeliveryQueue } from './delivery-queue';

const config = {
  WEBHOOK_TIMEOUT_MS: 1000,
  WEBHOOK_RETRY_MS: 3600000,
  WEBHOOK_DISABLE_AFTER_FAILURES: 3,
  WEBHOOK_DISABLE_AFTER_MS: 3600000,
  WEBHOOK_LOG_PER_ENDPOINT: 2,
} as GatewayConfig;

describe('webhook delivery queue (embedded PostgreSQL)', () => {
  let db: EmbeddedDatabase;
  let ds: DataSource;
  let queue: DeliveryQueue;
  const project = uuidv7();

  beforeAll(async () => {
    db = await embeddedDatabase(gatewayDatabase);
    ds = db.ds;
    queue = new DeliveryQueue(ds, config);
  }, 180000);
  afterAll(() => db.stop());
  beforeEach(() => ds.query('TRUNCATE gateway.webhook_endpoints, gateway.webhook_deliveries'));

  async function endpoint(events: string[], opts: { enabled?: boolean; createdAt?: Date } = {}): Promise<string> {
    const id = uuidv7();
    const at = opts.createdAt ?? new Date(Date.now() - 60000);
    await ds.query(
      `INSERT INTO gateway.webhook_endpoints (id, project_id, url, events, secret, enabled, created_at, updated_at)
       VALUES ($1, $2, 'http://127.0.0.1:1/x', $3::jsonb, 'whsec_x', $4, $5, $5)`,
      [id, project, JSON.stringify(events), opts.enabled ?? true, at],
    );
    return id;
  }

  const event = (type: OutboxEvent['type'] = 'upsert.completed', at = new Date()): OutboxEvent => ({
    id: uuidv7(),
    project_id: project,
    type,
    resource: 'upsert',
    created_at: isoMicro(at),
    data: { n: 1 },
  });

  const ok = { ok: true, statusCode: 200, error: null };
  const failed = { ok: false, statusCode: 500, error: 'HTTP 500' };
  const rows = async () =>
    ds.query<Array<{ endpoint_id: string; event_id: string; status: string; attempts: number }>>(
      'SELECT endpoint_id, event_id, status, attempts FROM gateway.webhook_deliveries ORDER BY id',
    );

  it('stores an event for each enabled endpoint of its project that subscribes to it and existed then, once', async () => {
    const wants = await endpoint(['upsert.completed', 'feedback.created']);
    await endpoint(['feedback.created']);
    await endpoint(['upsert.completed'], { enabled: false });
    await endpoint(['upsert.completed'], { createdAt: new Date(Date.now() + 60000) });
    const events = [event(), event('feedback.created'), { ...event(), project_id: uuidv7() }];
    expect(await queue.store(events)).toBe(3);
    // Read again (its acknowledgement lost): stored once.
    expect(await queue.store(events)).toBe(0);
    const stored = await rows();
    expect(stored.filter((r) => r.endpoint_id === wants).map((r) => r.event_id)).toEqual([events[0].id, events[1].id]);
    expect(stored).toHaveLength(3);
    const [body] = await ds.query<Array<{ body: string }>>('SELECT body FROM gateway.webhook_deliveries WHERE event_id = $1 LIMIT 1', [events[0].id]);
    // An endpoint gone by the time its deliveries are stored gets none.
    const gone = await endpoint(['upsert.completed']);
    await ds.query('DELETE FROM gateway.webhook_endpoints WHERE id = $1', [gone]);
    expect(await queue.store([event()])).toBe(1);
    expect((await rows()).filter((r) => r.endpoint_id === gone)).toEqual([]);
    expect(JSON.parse(body.body)).toEqual({ id: events[0].id, type: 'upsert.completed', created_at: events[0].created_at, project, resource: 'upsert', data: { n: 1 } });
  });

  it("claims only each endpoint's oldest pending delivery, once, and the next only after it is delivered", async () => {
    const a = await endpoint(['upsert.completed']);
    const b = await endpoint(['upsert.completed']);
    const events = [event(), event(), event()];
    await queue.store(events);
    const first = await queue.claim(10);
    expect(first.map((d) => [d.endpoint_id, d.event_id, d.attempts]).sort()).toEqual(
      [
        [a, events[0].id, 1],
        [b, events[0].id, 1],
      ].sort(),
    );
    // Leased: nobody else gets them, nor what waits behind them.
    expect(await queue.claim(10)).toEqual([]);
    const ofA = first.find((d) => d.endpoint_id === a)!;
    await queue.finish(ofA, failed, 0);
    const again = await queue.claim(10);
    expect(again.map((d) => [d.event_id, d.attempts])).toEqual([[events[0].id, 2]]);
    // The first attempt's late record changes nothing: the second one holds it.
    await queue.finish(ofA, ok, 0);
    expect((await rows()).find((r) => r.endpoint_id === a && r.event_id === events[0].id)).toMatchObject({ status: 'pending', attempts: 2 });
    await queue.finish(again[0], ok, 0);
    expect((await queue.claim(10)).map((d) => d.event_id)).toEqual([events[1].id]);
  });

  it('gives a delivery up once its retry window has passed, and disables an endpoint after failed attempts in a row', async () => {
    const a = await endpoint(['upsert.completed'], { createdAt: new Date(Date.now() - 3 * 3600000) });
    await queue.store([event('upsert.completed', new Date(Date.now() - 2 * 3600000)), event()]);
    const [old] = await queue.claim(10);
    await queue.finish(old, failed, 1000);
    expect((await rows()).map((r) => r.status)).toEqual(['failed', 'pending']);
    let next: ClaimedDelivery[] = [];
    for (let i = 0; i < 2; i++) {
      next = await queue.claim(10);
      expect(next).toHaveLength(1);
      await queue.finish(next[0], failed, 0);
    }
    const [ep] = await ds.query<Array<{ enabled: boolean; disabled_reason: string; consecutive_failures: number }>>(
      'SELECT enabled, disabled_reason, consecutive_failures FROM gateway.webhook_endpoints WHERE id = $1',
      [a],
    );
    expect(ep).toEqual({ enabled: false, disabled_reason: 'Disabled after 3 failed attempts in a row (the last: HTTP 500).', consecutive_failures: 3 });
    expect(await queue.claim(10)).toEqual([]);
  });

  it("keeps the newest finished deliveries of each endpoint's log, and every pending one", async () => {
    await endpoint(['upsert.completed']);
    await queue.store([event(), event(), event(), event(), event()]);
    for (let i = 0; i < 4; i++) await queue.finish((await queue.claim(1))[0], ok, 0);
    expect(await queue.prune()).toBe(2);
    expect((await rows()).map((r) => r.status)).toEqual(['delivered', 'delivered', 'pending']);
  });
});
