import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivateNats, PrivatePostgres } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import { expectOutageAnswered503, expectRecoveredWithNothingLost, outageUnderTraffic } from './support/faults';

/**
 * PostgreSQL stops for a few seconds under a steady stream of upserts, questions and reads (a cluster of this
 * test's own, shut down as an operator would or crashed, then started again): every request answers 503 or
 * succeeds while it is down, readiness says not ready, the service recovers by itself, and nothing is lost or
 * half-written.
 */
jest.setTimeout(180000);

const BUS_TIMEOUT_MS = 5000;
/** A request still unanswered after this long counts as hanging. */
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
      0,
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
    const run = await outageUnderTraffic(service, api.key, { stop: () => pg.stop(mode), start: () => pg.start() }, { downMs: 4000, hangMs: HANG_MS });

    expectOutageAnswered503(run);
    await expectRecoveredWithNothingLost(service, api, run.traffic);
  });
});
