import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import { expectOutageAnswered503, expectRecoveredWithNothingLost, outageUnderTraffic } from './support/faults';

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
      0,
      { natsUrl: nats.url, logDir },
    );
  });
  afterAll(async () => {
    await service?.stop();
    await nats?.destroy();
    if (!process.env.KEEP_LOGS) rmSync(logDir, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)('%s: 503 while it is down, reconnection by itself, no accepted upsert lost', async (signal) => {
    const api = await Api.withProject(service);
    const run = await outageUnderTraffic(service, api.key, { stop: () => nats.stop(signal), start: () => nats.start() }, { downMs: 3000, hangMs: HANG_MS });

    expectOutageAnswered503(run);
    await expectRecoveredWithNothingLost(service, api, run.traffic);
  });
});
