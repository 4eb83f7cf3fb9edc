import { Client } from 'pg';
import { PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import { listedItemIds, sleep, streamItem } from './support/faults';

/**
 * The bus goes away (a NATS server of this test's own) with a backlog of upserts waiting, for much longer than
 * UPSERT_MAX_ATTEMPTS attempts and their backoffs last: an unavailable service is not the data's fault, so the upserts
 * stay `processing` with the reason on record, are retried with a growing backoff, and all complete once the bus is
 * back; none fails.
 */
jest.setTimeout(240000);

const MAX_ATTEMPTS = 3;
const DOWN_MS = 12000;
const UPSERTS_PER_PROJECT = 8;
const ITEMS_PER_UPSERT = 150;

interface Row {
  status: string;
  attempts: number;
  outage_attempts: number;
  error: string | null;
}

describe('an outage of the bus under a backlog of upserts', () => {
  let nats: PrivateNats;
  let service: Running;
  let db: Client;

  beforeAll(async () => {
    nats = await PrivateNats.start();
    service = await startService(
      'distributed',
      {
        UPSERT_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
        UPSERT_RETRY_BACKOFF_MS: '200',
        UPSERT_OUTAGE_BACKOFF_MAX_MS: '1000',
        UPSERT_LEASE_MS: '5000',
        BUS_TIMEOUT_MS: '3000',
        INGEST_POLL_MS: '300',
      },
      0,
      { natsUrl: nats.url },
    );
    db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await service?.stop();
    await nats?.destroy();
  });

  const rows = async (ids: string[]) => (await db.query<Row>('SELECT status, attempts, outage_attempts, error FROM ingestion.upserts WHERE id = ANY($1::uuid[])', [ids])).rows;

  it('keeps every upsert processing while the bus is down, and completes them all once it is back', async () => {
    const apis = [await Api.withProject(service), await Api.withProject(service)];
    const sent = apis.map((_, p) =>
      Array.from({ length: UPSERTS_PER_PROJECT }, (_, u) => Array.from({ length: ITEMS_PER_UPSERT }, (_, i) => streamItem(p * 100000 + u * 1000 + i))),
    );
    const receipts = await Promise.all(apis.map((api, p) => Promise.all(sent[p].map((items) => api.call<{ data: { id: string } }>('POST', '/upserts', { items })))));
    const ids = receipts.map((r) => r.map((x) => x.data.id));
    await nats.stop('SIGKILL');
    await sleep(DOWN_MS);

    const during = await rows(ids.flat());
    // The outage outlasted the attempts a failing upsert is allowed, yet nothing failed: what was left waits, its
    // reason on record.
    expect(during.filter((r) => r.status === 'failed')).toEqual([]);
    const waiting = during.filter((r) => r.status === 'processing' && r.attempts > MAX_ATTEMPTS);
    expect(waiting.length).toBeGreaterThan(0);
    for (const r of waiting) {
      expect(r.outage_attempts).toBeGreaterThan(0);
      expect(r.error).toMatch(/unavailable|connection|NATS|answer/i);
    }

    await nats.start();
    for (const [p, api] of apis.entries()) await api.waitCompleted(ids[p], 120000);
    const after = await rows(ids.flat());
    expect(after.map((r) => r.status)).toEqual(Array(after.length).fill('completed'));
    expect(after.every((r) => r.error === null)).toBe(true);
    for (const [p, api] of apis.entries()) {
      const listed = await listedItemIds(service.url, api.key);
      expect(new Set(listed)).toEqual(new Set(sent[p].flat().map((i) => i.id)));
    }
  });
});
