import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { checkoutPrefix } from '../../bench/lib/service';
import { assertTestDatabaseName, freePort, ROOT } from '../support/harness';

/**
 * README's distributed command, run as a user runs it: `ADMIN_TOKEN=... npm run start:distributed` on the local
 * PostgreSQL and NATS (a database and a subject prefix of the test's own, ports that are free). It must come up,
 * take a key made with the admin CLI, answer a question from what was upserted, and stop every app on Ctrl-C.
 */
jest.setTimeout(600_000);

const run = promisify(execFile);
const PG = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('npm run start:distributed', () => {
  const database = `askdata_test_start_${randomBytes(4).toString('hex')}`;
  const logDir = mkdtempSync(join(tmpdir(), 'askdata-start-distributed-'));
  const adminToken = `adm_${randomBytes(12).toString('hex')}`;
  let port: number;
  let adminPort: number;
  let env: NodeJS.ProcessEnv;
  let script: ChildProcess;
  let output = '';
  let exited: Promise<void>;

  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  const adminUrl = (path: string) => `http://127.0.0.1:${adminPort}${path}`;
  const logs = () =>
    `${output}\n${['gateway', 'ingestion', 'catalog', 'retrieval', 'conversation']
      .map((a) => {
        try {
          return `--- ${a}\n${readFileSync(join(logDir, `${a}.log`), 'utf8').slice(-2000)}`;
        } catch {
          return `--- ${a}: no log`;
        }
      })
      .join('\n')}`;

  beforeAll(async () => {
    assertTestDatabaseName(database);
    port = await freePort();
    // The admin port and, by default, the four health ports after it.
    adminPort = await freePort(5);
    const u = new URL(PG);
    u.pathname = `/${database}`;
    env = {
      ...process.env,
      ADMIN_TOKEN: adminToken,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      DATABASE_URL: u.toString(),
      NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      NATS_SUBJECT_PREFIX: checkoutPrefix(),
      LOG_DIR: logDir,
    };
    delete env.HEALTH_PORT;
    delete env.HEALTH_PORT_BASE;
    // Its own process group, as a terminal gives the command: Ctrl-C is SIGINT to the whole group.
    script = spawn('npm', ['run', 'start:distributed'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    script.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    script.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((ok) => script.once('exit', () => ok()));
  });

  afterAll(async () => {
    if (script.exitCode === null && script.signalCode === null) {
      try {
        process.kill(-script.pid!, 'SIGKILL');
      } catch {
        /* gone already */
      }
    }
    rmSync(logDir, { recursive: true, force: true });
    const admin = new Client({ connectionString: PG });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  });

  it('comes up, takes a key from the admin CLI, answers a question, and stops on Ctrl-C', async () => {
    const deadline = Date.now() + 400_000;
    for (;;) {
      if (script.exitCode !== null) throw new Error(`start:distributed exited ${script.exitCode}:\n${logs()}`);
      // The script says so once GET /health answers 200.
      if (output.includes(`listening on http://127.0.0.1:${port}/v1`)) break;
      if (Date.now() > deadline) throw new Error(`not healthy in time:\n${logs()}`);
      await sleep(1000);
    }
    expect((await fetch(adminUrl('/health'))).status).toBe(200);

    const admin = async (...args: string[]) => {
      const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', '--json', ...args], { cwd: ROOT, env: { ...env, ADMIN_URL: adminUrl('') } });
      return (JSON.parse(stdout) as { data: { id: string; key?: string } }).data;
    };
    const project = await admin('projects', 'create', '--name', 'start-distributed');
    const { key } = await admin('keys', 'create', project.id, '--name', 'readme');
    expect(key).toMatch(/^ak_/);

    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(url(`/v1${path}`), {
        method,
        headers: { 'Api-Key': key!, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: r.status, body: (await r.json()) as { data: any } };
    };
    const receipt = await call('POST', '/upserts', { items: [{ id: 'faq-1', data: { title: 'Opening hours', text: 'We are open 9am to 5pm, Monday to Friday.' } }] });
    expect(receipt.status).toBe(201);
    for (;;) {
      const u = await call('GET', `/upserts/${receipt.body.data.id}`);
      expect(u.body.data.status).not.toBe('failed');
      if (u.body.data.status === 'completed') break;
      await sleep(250);
    }
    const answer = await call('POST', '/query', { text: 'When are you open?' });
    expect(answer.status).toBe(201);
    expect(answer.body.data.text).toContain('9am to 5pm');
    expect(answer.body.data.sources.map((s: { item_id: string }) => s.item_id)).toEqual(['faq-1']);

    process.kill(-script.pid!, 'SIGINT');
    await exited;
    // Every process it started stops with it: none of the group is left, and the gateway's ports are closed.
    const groupAlive = () => {
      try {
        process.kill(-script.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (groupAlive()) await sleep(250);
    expect(
      await fetch(adminUrl('/health')).then(
        () => 'open',
        () => 'closed',
      ),
    ).toBe('closed');
    expect(
      await fetch(url('/v1/items')).then(
        () => 'open',
        () => 'closed',
      ),
    ).toBe('closed');
  });
});
