import { spawn } from 'node:child_process';
import { freePort, MAIN, RunningService, sharedService, startService } from '../support/harness';

/**
 * What a newcomer meets first: the service listens where README says (127.0.0.1 unless HOST says otherwise), and
 * its first start prints the URL, the key and the admin token, and little else, at the default log level.
 * 127.0.0.2 is another address of the loopback interface: a server bound to 127.0.0.1 alone refuses it.
 */
const reachable = (url: string, host: string) => {
  const u = new URL(url);
  u.hostname = host;
  // The OpenAPI document is served on the public port in both modes (/health is on the admin port in distributed mode).
  return fetch(`${u.origin}/v1/openapi.json`).then(
    (r) => r.status,
    (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
  );
};

describe('first start', () => {
  let fresh: RunningService;
  beforeAll(async () => {
    fresh = await startService({ mode: 'standalone', env: { LOG_LEVEL: 'info', HOST: '0.0.0.0' } });
  }, 240_000);

  afterAll(async () => {
    await fresh?.stop();
  }, 60_000);

  it('by default listens on 127.0.0.1 only', async () => {
    expect(await reachable(sharedService().url, '127.0.0.1')).toBe(200);
    expect(await reachable(sharedService().url, '127.0.0.2')).toBe('ECONNREFUSED');
  });

  it('listens on every interface with HOST=0.0.0.0', async () => {
    expect(await reachable(fresh.url, '127.0.0.2')).toBe(200);
  });

  it('refuses a second start on a data directory in use, naming the process holding it, and the first goes on', async () => {
    const second = spawn(process.execPath, [MAIN], { env: { ...process.env, DATA_DIR: fresh.dataDir, PORT: String(await freePort()), LOG_LEVEL: 'info' } });
    let printed = '';
    second.stdout.on('data', (d) => (printed += d));
    second.stderr.on('data', (d) => (printed += d));
    const code = await new Promise((done) => second.once('exit', done));
    expect({ code, printed: printed.trim() }).toEqual({ code: 1, printed: expect.stringMatching(/is in use by process \d+: one askdata standalone service at a time/) });
    expect(printed).not.toMatch(/listening on/);
    expect(await reachable(fresh.url, '127.0.0.1')).toBe(200);
  }, 60_000);

  it('prints the URL, the key and the admin token, and little else, at the default log level', () => {
    const lines = fresh
      .output()
      .split('\n')
      .filter((l) => l.trim());
    expect(lines.join('\n')).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(lines.join('\n')).toMatch(/API key: ak_\S+/);
    expect(lines.join('\n')).not.toMatch(/TypeORM|DEBUG|migration/i);
    expect(lines.length).toBeLessThanOrEqual(8);
  });

  it("reports the embedded database's memory on the metrics endpoint", async () => {
    const metrics = await (await fetch(`${fresh.adminUrl}/metrics`)).text();
    const bytes = Number(/^askdata_embedded_db_memory_bytes (\d+)/m.exec(metrics)?.[1]);
    // PGlite starts with 128 MB and grows by what PostgreSQL asks for: its 16 MB of shared buffers fit in that (with
    // 128 MB of them, as PostgreSQL's default, it started at 189 MB).
    expect(bytes).toBeGreaterThanOrEqual(128 * 2 ** 20);
    expect(bytes).toBeLessThan(160 * 2 ** 20);
  });
});
