import { Mode, startService } from '../../bench/lib/service';

/**
 * Starts the service once for the whole end-to-end run: standalone (default) or distributed (E2E_MODE).
 * Workers start after this and inherit the environment, so the URL and admin token reach them through it.
 */
export default async function globalSetup(): Promise<void> {
  const mode: Mode = process.env.E2E_MODE === 'distributed' ? 'distributed' : 'standalone';
  const service = await startService(mode, { RATE_LIMIT_PER_MINUTE: '100000', LOG_LEVEL: 'error' }, 3950);
  (globalThis as { __askdata?: unknown }).__askdata = service;
  process.env.ASKDATA_E2E_URL = service.url;
  process.env.ASKDATA_E2E_ADMIN_TOKEN = service.adminToken;
}
