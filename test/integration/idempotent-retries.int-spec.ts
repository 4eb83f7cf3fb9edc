import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { freePort, PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import { DataSource } from 'typeorm';
import { IdempotencyStore } from '../../apps/gateway/src/idempotency/idempotency.store';
import { GatewayConfig } from '../../apps/gateway/src/gateway.config';
import { HoldingProxy } from './support/holding-proxy';
import { eventually, sleep } from './support/faults';

/**
 * A POST whose work is committed but whose answer is lost: the gateway's NATS connection (through a proxy of this
 * test) drops after the service has committed and before its reply arrives, so the client gets 503. Retried with
 * the same Idempotency-Key, it gets the first answer (the stored upsert, chat or answer) and nothing is created
 * twice. Concurrent requests with one key through two gateways: one does the work, the others get its answer.
 */
jest.setTimeout(240000);

const FAQ = [
  { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am.' } },
  { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt.' } },
];

interface Answer {
  status: number;
  body: { data?: { id: string; messages?: Array<{ id: string }> } };
  replayed: boolean;
}

describe('a POST answered 503 after its work was committed, retried with its Idempotency-Key', () => {
  let nats: PrivateNats;
  let proxy: HoldingProxy;
  let service: Running;
  let proxied: string;
  let db: Client;

  beforeAll(async () => {
    nats = await PrivateNats.start();
    service = await startService('distributed', { BUS_TIMEOUT_MS: '10000' }, 0, { natsUrl: nats.url });
    proxy = await HoldingProxy.start(nats.port);
    // A second gateway, whose NATS connection goes through the proxy.
    const port = await freePort();
    service.spawnApp('gateway', { PORT: String(port), NATS_URL: proxy.url });
    proxied = `http://127.0.0.1:${port}`;
    await eventually('the proxied gateway', async () => ((await fetch(`${proxied}/health/ready`)).ok ? true : undefined), 60000);
    db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await service?.stop();
    await proxy?.close();
    await nats?.destroy();
  });

  const post = async (api: Api, url: string, path: string, body: unknown, key: string): Promise<Answer> => {
    const res = await fetch(`${url}/v1${path}`, {
      method: 'POST',
      headers: { 'Api-Key': api.key, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'], replayed: res.headers.get('idempotent-replayed') === 'true' };
  };

  /** The ids `sql` finds for the project, in order. */
  const rows = async (sql: string, projectId: string): Promise<string[]> => (await db.query<{ id: string }>(sql, [projectId])).rows.map((r) => r.id);

  const projectOf = async (api: Api): Promise<string> => {
    const {
      rows: [row],
    } = await db.query<{ project_id: string }>(`SELECT project_id FROM gateway.api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`, [api.key]);
    return row.project_id;
  };

  /**
   * Sends the POST through the proxied gateway with the answer held back, waits until the work is committed
   * (`committed` finds a new row), cuts the connection, then retries with the same key until the bus is back.
   */
  async function lostThenRetried(api: Api, path: string, body: unknown, committed: () => Promise<string[]>): Promise<{ first: Answer; retry: Answer; stored: string[] }> {
    const key = randomUUID();
    const before = await committed();
    proxy.hold();
    const pending = post(api, proxied, path, body, key);
    const stored = await eventually(
      'the work committed',
      async () => {
        const now = await committed();
        return now.length > before.length ? now.filter((id) => !before.includes(id)) : undefined;
      },
      60000,
    );
    proxy.cut();
    const first = await pending;
    let retry: Answer;
    const until = Date.now() + 60000;
    do {
      await sleep(250);
      retry = await post(api, proxied, path, body, key);
    } while (retry.status === 503 && Date.now() < until);
    expect(await committed()).toEqual([...before, ...stored].sort());
    return { first, retry, stored };
  }

  it('POST /v1/upserts: the retry gets the stored upsert, and one upsert is stored', async () => {
    const api = await Api.withProject(service);
    const project = await projectOf(api);
    const { first, retry, stored } = await lostThenRetried(api, '/upserts', { items: FAQ }, () =>
      rows('SELECT id FROM ingestion.upserts WHERE project_id = $1 ORDER BY id', project),
    );
    expect(first.status).toBe(503);
    expect(retry.status).toBe(201);
    expect(stored).toEqual([retry.body.data!.id]);
    await api.waitCompleted(stored, 60000);
  });

  it('POST /v1/chats: the retry gets the stored chat with its question and answer, and one chat is stored', async () => {
    const api = await Api.withProject(service);
    const project = await projectOf(api);
    await api.upsertAll(FAQ);
    const { first, retry, stored } = await lostThenRetried(api, '/chats', { text: 'When does the shop open on Saturdays?' }, () =>
      rows('SELECT id FROM conversation.chats WHERE project_id = $1 ORDER BY id', project),
    );
    expect(first.status).toBe(503);
    expect(retry.status).toBe(201);
    expect(stored).toEqual([retry.body.data!.id]);
    const messages = await rows('SELECT id FROM conversation.messages WHERE project_id = $1 ORDER BY id', project);
    expect(retry.body.data!.messages!.map((m) => m.id)).toEqual(messages);
  });

  it('POST /v1/query: the retry gets the stored answer, and one query is stored', async () => {
    const api = await Api.withProject(service);
    const project = await projectOf(api);
    await api.upsertAll(FAQ);
    const { first, retry, stored } = await lostThenRetried(api, '/query', { text: 'Can items be returned?' }, () =>
      rows('SELECT id FROM conversation.chats WHERE project_id = $1 ORDER BY id', project),
    );
    expect(first.status).toBe(503);
    expect(retry.status).toBe(201);
    expect(stored).toHaveLength(1);
    const answer = await rows(`SELECT id FROM conversation.messages WHERE project_id = $1 AND role = 'assistant'`, project);
    expect([retry.body.data!.id]).toEqual(answer);
  });

  it('POST /v1/chats/{chat}/messages: the retry gets the stored answer, and one follow-up is stored', async () => {
    const api = await Api.withProject(service);
    const project = await projectOf(api);
    await api.upsertAll(FAQ);
    const chat = await api.call<{ data: { id: string } }>('POST', '/chats', { text: 'When is the shop open?' });
    const { first, retry, stored } = await lostThenRetried(api, `/chats/${chat.data.id}/messages`, { text: 'And on Saturdays?' }, () =>
      rows('SELECT id FROM conversation.messages WHERE project_id = $1 ORDER BY id', project),
    );
    expect(first.status).toBe(503);
    expect(retry.status).toBe(201);
    expect(stored).toHaveLength(2);
    expect(retry.body.data!.id).toBe(stored[1]);
  });

  it('concurrent requests with one key through two gateways: one chat, every answer the same or 409', async () => {
    const api = await Api.withProject(service);
    const project = await projectOf(api);
    await api.upsertAll(FAQ);
    const key = randomUUID();
    const body = { text: 'What are the opening hours on weekdays?' };
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(api, i % 2 ? proxied : service.url, '/chats', body, key)));
    for (const a of answers) expect([201, 409]).toContain(a.status);
    const created = answers.filter((a) => a.status === 201);
    expect(created.filter((a) => !a.replayed)).toHaveLength(1);
    for (const a of created) expect(a.body).toEqual(created[0].body);
    expect(await rows('SELECT id FROM conversation.chats WHERE project_id = $1', project)).toEqual([created[0].body.data!.id]);
  });

  it('an expired key is forgotten: the request runs again, and expired rows are removed', async () => {
    const api = await Api.withProject(service);
    const project = await projectOf(api);
    const key = randomUUID();
    const first = await post(api, service.url, '/upserts', { items: FAQ }, key);
    expect(first.status).toBe(201);
    await db.query(`UPDATE gateway.idempotency_keys SET expires_at = now() - interval '1 second' WHERE project_id = $1`, [project]);
    const later = await post(api, service.url, '/upserts', { items: FAQ }, key);
    expect(later.status).toBe(201);
    expect(later.replayed).toBe(false);
    expect(later.body.data!.id).not.toBe(first.body.data!.id);

    await db.query(`UPDATE gateway.idempotency_keys SET expires_at = now() - interval '1 second' WHERE project_id = $1`, [project]);
    const kept = randomUUID();
    await post(api, service.url, '/upserts', { items: FAQ }, kept);
    // The gateways' own sweep runs each minute; run one now over the same table.
    const ds = { query: async (sql: string, params?: unknown[]) => (await db.query(sql, params)).rows } as unknown as DataSource;
    expect(await new IdempotencyStore(ds, {} as GatewayConfig).sweep()).toBeGreaterThanOrEqual(1);
    expect(await rows('SELECT key AS id FROM gateway.idempotency_keys WHERE project_id = $1', project)).toEqual([kept]);
  });
});
