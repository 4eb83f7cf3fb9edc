import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import {
  CONSISTENT, eventually, inconsistencies, listedItemIds, readiness, sleep, statusCounts, Traffic, unexpected,
} from './support/faults';

/**
 * The bus goes away under a steady stream of upserts, questions and reads (a NATS server of this test's own, stopped
 * and started again on the same port and store): the apps reconnect by themselves, requests fail with 503 in
 * bounded time while it is away, and every upsert the service accepted ends `completed`, nothing twice.
 */
jest.setTimeout(180000);

const BUS_TIMEOUT_MS = 5000;
/** A request still unanswered after this long counts as hanging. */
const HANG_MS = BUS_TIMEOUT_MS + 15000;

describe('NATS restarting under traffic', () => {
  let nats: PrivateNats;
  let service: Running;
  let logDir: string;

  beforeAll(async () => {
    nats = await PrivateNats.start();
    logDir = mkdtempSync(join(tmpdir(), 'askdata-int-nats-'));
    service = await startService(
      'distributed',
      { BUS_TIMEOUT_MS: String(BUS_TIMEOUT_MS), UPSERT_LEASE_MS: '5000', UPSERT_RETRY_BACKOFF_MS: '500', INGEST_POLL_MS: '500', LOG_LEVEL: 'info' },
      4510,
      { natsUrl: nats.url, logDir },
    );
  });
  afterAll(async () => {
    await service?.stop();
    await nats?.destroy();
    if (!process.env.KEEP_LOGS) rmSync(logDir, { recursive: true, force: true });
  });

  it('answers 503 while it is down, reconnects by itself, and loses no accepted upsert', async () => {
    const api = await Api.withProject(service);
    const traffic = new Traffic(service.url, api.key, HANG_MS);
    traffic.start();
    try {
      await traffic.succeeding(0, 30, 30000);

      const down = Date.now();
      await nats.stop();
      await sleep(1500);
      const whileDown = await readiness(service);
      await sleep(1500);
      const up = Date.now();
      await nats.start();

      // Every kind of request succeeds again, without restarting any app.
      for (const op of ['upsert', 'query', 'items'] as const) {
        await eventually(`${op} succeeding after the restart`, async () => (traffic.between(up).some((o) => o.op === op && o.status < 300) ? true : undefined), 60000);
      }
      await sleep(1000);
      await traffic.stop();

      expect(Object.values(whileDown).every((s) => s === 503)).toBe(true);
      expect(statusCounts(traffic.between(down, up))['503']).toBeGreaterThan(0);
      // Only successes and 503s, and no request hung (status 0), including those in flight when NATS stopped.
      expect(unexpected(traffic.outcomes)).toEqual([]);
      expect(await eventually('every app ready', async () => {
        const r = await readiness(service);
        return Object.values(r).every((s) => s === 200) ? r : undefined;
      }, 30000)).toBeDefined();
    } finally {
      await traffic.stop();
    }

    // Nothing accepted is lost: every accepted upsert completes, and its items are listed once each.
    expect(traffic.accepted.size).toBeGreaterThan(10);
    await api.waitCompleted([...traffic.accepted.keys()], 90000);
    const listed = await listedItemIds(service.url, api.key);
    expect(new Set(listed).size).toBe(listed.length);
    const acceptedIds = new Set([...traffic.accepted.values()].flat());
    expect([...acceptedIds].filter((id) => !listed.includes(id))).toEqual([]);
    expect(listed.filter((id) => !traffic.sent.has(id))).toEqual([]);
    // Upserts stored whose 201 was lost with the bus complete too; nothing is half-written.
    expect(await eventually('all stored upserts completed', async () => {
      const found = await inconsistencies(service.databaseUrl!);
      return found.upsertsNotCompleted === 0 ? found : undefined;
    }, 60000)).toEqual(CONSISTENT);
  });
});
