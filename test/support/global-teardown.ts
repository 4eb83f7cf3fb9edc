import { rmSync } from 'node:fs';
import { RunningService } from './harness';

/** Stops the service of the run (SIGTERM, then SIGKILL) and drops its test database; logs stay unless E2E_DROP_LOGS. */
export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __askdataE2E?: { service: RunningService; dir: string } };
  const run = g.__askdataE2E;
  if (!run) return;
  g.__askdataE2E = undefined;
  await run.service.stop();
  rmSync(run.dir, { recursive: true, force: true });
  if (process.env.E2E_DROP_LOGS) rmSync(run.service.logDir, { recursive: true, force: true });
}
