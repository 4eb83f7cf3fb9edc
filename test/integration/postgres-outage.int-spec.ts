import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivateNats, PrivatePostgres } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import {
  CONSISTENT, eventually, inconsistencies, listedItemIds, readiness, sleep, statusCounts, Traffic, unexpected,
} from './support/faults';

/**
 * PostgreSQL stops for a few seconds under a steady stream of upserts, questions and reads (a cluster of this
 * test's own, shut down as an operator would or crashed, then started again): every request answers 503 or
 * succeeds while it is down, readiness says not ready, the service recovers by itself, and nothing is lost or
 * half-written.
 */
jest.setTimeout(180000);

const BUS_TIMEOUT_MS = 5000;
const HANG_MS = BUS_TIMEOUT_MS + 15000;

describe('PostgreSQL stopping under traffic', () => {
  let pg: PrivatePostgres;
  let nats: PrivateNats;
  let service: Running;
  let logDir: string;

  beforeAll(async () => {
    [pg, nats] = await Promise.all([PrivatePostgres.start(), PrivateNats.start()]);
    logDir = mkdtempSync(join(tmpdir(), 'askdata-int-pg-'));
    service = await startService(
      'distributed',
      { BUS_TIMEOUT_MS: String(BUS_TIMEOUT_MS), UPSERT_LEASE_MS: '4000', UPSERT_RETRY_BACKOFF_MS: '500', INGEST_POLL_MS: '500', LOG_LEVEL: 'info' },
      4710,
      { natsUrl: nats.url, pgUrl: pg.adminUrl, logDir },
    );
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([pg?.destroy(), nats?.destroy()]);
    if (!process.env.KEEP_LOGS) rmSync(logDir, { recursive: true, force: true });
  });

  it.each(['fast', 'immediate'] as const)('%s shutdown: 503 and not ready while down, then recovery with nothing lost or half-written', async (mode) => {
    const api = await Api.withProject(service);
    const traffic = new Traffic(service.url, api.key, HANG_MS);
    traffic.start();
    let whileDown: Record<string, number> = {};
    let systemWhileDown = 0;
    try {
      await traffic.succeeding(0, 30, 30000);

      const down = Date.now();
      await pg.stop(mode);
      await sleep(1000);
      whileDown = await readiness(service);
      systemWhileDown = (await fetch(`${service.url}/health`)).status;
      await sleep(3000);
      const up = Date.now();
      await pg.start();

      for (const op of ['upsert', 'query', 'items'] as const) {
        await eventually(`${op} succeeding after the restart`, async () => (traffic.between(up).some((o) => o.op === op && o.status < 300) ? true : undefined), 60000);
      }
      await sleep(1000);
      await traffic.stop();

      expect(statusCounts(traffic.between(down + 500, up))['503']).toBeGreaterThan(0);
      // Only successes and 503s, and no request hung, including those in flight when the database went away.
      expect(unexpected(traffic.outcomes)).toEqual([]);
    } finally {
      await traffic.stop();
    }
    expect(Object.entries(whileDown).filter(([, status]) => status !== 503)).toEqual([]);
    expect(systemWhileDown).toBe(503);
    expect(await eventually('every app ready', async () => {
      const r = await readiness(service);
      return Object.values(r).every((s) => s === 200) ? r : undefined;
    }, 30000)).toBeDefined();

    expect(traffic.accepted.size).toBeGreaterThan(10);
    await api.waitCompleted([...traffic.accepted.keys()], 90000);
    const listed = await listedItemIds(service.url, api.key);
    expect(new Set(listed).size).toBe(listed.length);
    const acceptedIds = new Set([...traffic.accepted.values()].flat());
    expect([...acceptedIds].filter((id) => !listed.includes(id))).toEqual([]);
    expect(listed.filter((id) => !traffic.sent.has(id))).toEqual([]);
    expect(await eventually('all stored upserts completed', async () => {
      const found = await inconsistencies(service.databaseUrl!);
      return found.upsertsNotCompleted === 0 ? found : undefined;
    }, 60000)).toEqual(CONSISTENT);
  });
});
