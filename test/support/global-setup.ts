import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modeFromEnv, publishService, RunningService, ServiceInfo, startService } from './harness';

/**
 * Starts the service ONCE for the whole end-to-end run (E2E_MODE=standalone|distributed) and publishes where it is
 * through a state file named in the environment: the test workers start after this and inherit the environment.
 * The rate limit is raised so that polling never trips it, and the failed-authentication limits so that the many
 * wrong credentials the suite sends from one address never trip them; rate-limit.e2e-spec.ts and
 * public-surface.e2e-spec.ts check 429 on gateways of their own.
 */
export default async function globalSetup(): Promise<void> {
  const mode = modeFromEnv();
  const started = Date.now();
  const service = await startService({
    mode,
    env: {
      REINDEX_BATCH_ITEMS: '25',
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_ADDRESS: '1000000',
      AUTH_FAILURES_PER_CREDENTIAL: '1000000',
      // Webhook retries and timeouts short enough for a test to see them (webhooks.e2e-spec.ts).
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_BACKOFF_MS: '200',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_DISABLE_AFTER_FAILURES: '6',
    },
  });
  const info: ServiceInfo = {
    mode: service.mode,
    url: service.url,
    adminUrl: service.adminUrl,
    adminToken: service.adminToken,
    databaseUrl: service.databaseUrl,
    natsUrl: service.natsUrl,
    defaultKey: service.defaultKey,
    logDir: service.logDir,
  };
  const dir = mkdtempSync(join(tmpdir(), 'askdata-e2e-state-'));
  const file = join(dir, 'service.json');
  writeFileSync(file, JSON.stringify(info));
  publishService(info, file);
  const g = globalThis as { __askdataE2E?: { service: RunningService; dir: string } };
  g.__askdataE2E = { service, dir };
  // If the run dies without teardown, do not leave the service running.
  process.once('exit', () => service.kill());
  process.stdout.write(
    `\n[e2e] ${mode} service on ${service.url} in ${((Date.now() - started) / 1000).toFixed(1)} s (logs: ${service.logDir}${process.env.E2E_KEEP_LOGS ? '' : ', removed at the end unless E2E_KEEP_LOGS=1'})\n`,
  );
}
