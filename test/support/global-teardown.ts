import { rmSync } from 'node:fs';
import { RunningService } from './harness';

/** Stops the service of the run (SIGTERM, then SIGKILL) and drops its test database; E2E_KEEP_LOGS=1 keeps its logs. */
export default async function globalTeardown(): Promise<void> {
  const g = globalThis as { __askdataE2E?: { service: RunningService; dir: string } };
  const run = g.__askdataE2E;
  if (!run) return;
  g.__askdataE2E = undefined;
  await run.service.stop();
  rmSync(run.dir, { recursive: true, force: true });
}
