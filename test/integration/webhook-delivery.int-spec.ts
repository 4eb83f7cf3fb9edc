import { Client } from 'pg';
import { freePort } from '../../bench/lib/private-infra';
import { Running, startService } from '../../bench/lib/service';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhook deliveries survive the gateway that sends them being killed: after the event's outbox row is committed
 * and before it is sent (the gateway dead while the upsert completes), and in the middle of the POST (the receiver
 * never answered); a gateway started again delivers them. Two gateways deliver each event once, in order.
 */
jest.setTimeout(300000);

const ENV = { WEBHOOK_POLL_MS: '100', WEBHOOK_BACKOFF_MS: '200', WEBHOOK_TIMEOUT_MS: '1000' };

describe('webhook deliveries when a gateway is killed (distributed)', () => {
  let service: Running;
  let db: Client;
  let receiver: WebhookReceiver;
  let projectId: string;
  let key: string;
  let secret: string;

  const adminCall = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${service.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${service.adminToken}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await r.json()) as { data: any };
  };
  const upsert = async (id: string, n = 1): Promise<string> => {
    const items = Array.from({ length: n }, (_, i) => ({ id: `${id}-${i}`, data: { title: `${id} ${i}`, text: `Record ${i} of ${id}: ${'words about herons '.repeat(40)}` } }));
    const r = await fetch(`${service.url}/v1/upserts`, { method: 'POST', headers: { 'Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ items }) });
    if (r.status !== 201) throw new Error(`upsert: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { data: { id: string } }).data.id;
  };
  const killGateway = async () => {
    const gateways = service.processes.get('gateway')!.filter((p) => p.exitCode === null && p.signalCode === null);
    for (const g of gateways) g.kill('SIGKILL');
    await Promise.all(gateways.map((g) => new Promise((r) => g.once('exit', r))));
  };
  const startGateway = async (more: Record<string, string> = {}) => {
    service.spawnApp('gateway', { ...ENV, ...more });
    const url = more.PORT ? `http://127.0.0.1:${more.PORT}` : service.url;
    const deadline = Date.now() + 60000;
    while (
      !(await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('the gateway did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const until = async (what: string, check: () => Promise<boolean>, ms = 60000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    service = await startService('distributed', ENV);
    db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    receiver = await new WebhookReceiver().start();
    projectId = (await adminCall('POST', '/admin/projects', { name: 'hooks', tenancy: 'single' })).data.id;
    key = (await adminCall('POST', `/admin/projects/${projectId}/keys`, { name: 'k' })).data.key;
    secret = (await adminCall('POST', `/admin/projects/${projectId}/webhooks`, { url: receiver.url, events: ['upsert.completed'] })).data.secret;
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.end();
    await service?.stop();
  });

  it('delivers an event committed while no gateway ran, once a gateway is back', async () => {
    const id = await upsert('dark', 300);
    await killGateway();
    // The upsert completes with no gateway: its event is committed in ingestion's outbox, and sent nowhere.
    await until('the upsert completed', async () => (await db.query(`SELECT 1 FROM ingestion.upserts WHERE id = $1 AND status = 'completed'`, [id])).rowCount === 1);
    const outbox = await db.query<{ data: string }>(`SELECT data FROM ingestion.webhook_outbox`);
    expect(outbox.rows.map((r) => JSON.parse(r.data).id)).toEqual([id]);
    expect(receiver.received).toEqual([]);

    await startGateway();
    const [got] = await receiver.until((r) => r.length >= 1, 60000);
    expect(got.body).toMatchObject({ type: 'upsert.completed', data: { id, status: 'completed', items_count: 300 } });
    expect(signatureValid(secret, got.headers['askdata-signature'], got.raw)).toBe(true);
    await until('the outbox acknowledged', async () => (await db.query('SELECT 1 FROM ingestion.webhook_outbox')).rowCount === 0);
  });

  it('sends again a delivery whose gateway died during the POST', async () => {
    const before = receiver.received.length;
    receiver.answer = () => 'hang';
    const id = await upsert('cut');
    await receiver.until((r) => r.length > before);
    await killGateway();
    const pending = await db.query<{ status: string; attempts: number }>(
      `SELECT d.status, d.attempts FROM gateway.webhook_deliveries d WHERE d.body::jsonb -> 'data' ->> 'id' = $1`,
      [id],
    );
    expect(pending.rows).toEqual([{ status: 'pending', attempts: 1 }]);

    receiver.answer = () => 200;
    await startGateway();
    const all = await receiver.until((r) => r.some((x) => x.answer === 200 && x.body.data.id === id), 60000);
    const attempts = all.filter((r) => r.body.data.id === id);
    expect(attempts.map((r) => r.answer)).toEqual(['hang', 200]);
    expect(new Set(attempts.map((r) => r.body.id)).size).toBe(1);
  });

  it('with two gateways, delivers each event once and in the order written', async () => {
    await startGateway({ PORT: String(await freePort()) });
    const before = receiver.received.length;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await upsert(`pair-${i}`));
    await receiver.until((r) => r.length >= before + ids.length);
    // The receiver has answered the last POST; its gateway writes the outcome just after.
    const outcomes = () =>
      db.query<{ status: string; attempts: number }>(`SELECT status, attempts FROM gateway.webhook_deliveries WHERE body::jsonb -> 'data' ->> 'id' = ANY($1::text[])`, [ids]);
    await until('every outcome written', async () => (await outcomes()).rows.every((r) => r.status !== 'pending'), 10000);
    // Every send is a claim, which counts an attempt: one each, delivered.
    expect((await outcomes()).rows).toEqual(ids.map(() => ({ status: 'delivered', attempts: 1 })));
    const got = receiver.received.slice(before);
    expect(got.map((r) => r.body.data.id)).toEqual(ids);
    expect(new Set(got.map((r) => r.body.id)).size).toBe(ids.length);
  });
});
