import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A NATS server and a PostgreSQL cluster of one's own, on free ports, for runs that stop and restart them (fault
 * tests) or must not share a bus with anyone else's deployment (distributed benchmarks: two deployments on one
 * NATS answer each other's requests). The machine's shared servers are never touched.
 */

/** Where the kernel's range of ports for outgoing connections begins (Linux), or its usual default. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 1024) return low;
  } catch {
    /* not Linux */
  }
  return 32768;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const server = createServer();
    server.unref();
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => server.close(() => ok(true)));
  });
}

/**
 * A port nobody listens on right now, below the range the kernel hands to outgoing connections: a port from that
 * range (what listening on port 0 gives) can become some connection's local port before the service binds it.
 * With `span` > 1 the ports above it, up to `span` in all, are free too (`startService` gives them to the apps'
 * health endpoints): a machine's own services sit on fixed ports in this range (RabbitMQ's 25672, say).
 */
export async function freePort(span = 1): Promise<number> {
  const top = ephemeralLow() - 20 - span;
  const bottom = Math.max(1024, top - 12000);
  for (let i = 0; i < 200; i++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    let free = true;
    for (let p = port; free && p < port + span; p++) free = await bindable(p);
    if (free) return port;
  }
  throw new Error(`no ${span} free ports in a row`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function accepts(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), ok(true)));
    socket.once('error', () => ok(false));
  });
}

async function waitForPort(port: number, what: string, ms = 20000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await accepts(port))) {
    if (Date.now() > deadline) throw new Error(`${what} does not accept connections on port ${port}`);
    await sleep(50);
  }
}

const exited = (p: ChildProcess) => p.exitCode !== null || p.signalCode !== null;

/**
 * `nats-server` with JetStream, its store in a temporary directory kept across restarts; `maxPayload` sets the
 * largest message it carries (1 MiB by default).
 */
export class PrivateNats {
  private child: ChildProcess | null = null;
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
    private readonly bin: string,
    private readonly maxPayload: number | null,
  ) {}

  static async start(bin = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', opts: { maxPayload?: number } = {}): Promise<PrivateNats> {
    if (!existsSync(bin)) throw new Error(`${bin} not found (set NATS_SERVER_BIN)`);
    const nats = new PrivateNats(await freePort(), mkdtempSync(join(tmpdir(), 'askdata-nats-')), bin, opts.maxPayload ?? null);
    await nats.start();
    process.once('exit', nats.killOnExit);
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null && !exited(this.child);
  }

  async start(): Promise<void> {
    if (this.running) return;
    const args = ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir];
    if (this.maxPayload !== null) {
      // Only a configuration file sets it.
      const config = join(this.storeDir, 'nats.conf');
      writeFileSync(config, `max_payload: ${this.maxPayload}\n`);
      args.push('-c', config);
    }
    this.child = spawn(this.bin, args, { stdio: 'ignore' });
    await waitForPort(this.port, 'nats-server');
  }

  /** SIGTERM (or the given signal) and wait for the process to end. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || exited(child)) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
  }

  async destroy(): Promise<void> {
    await this.stop();
    process.removeListener('exit', this.killOnExit);
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

/** The newest Debian PostgreSQL binaries, unless PG_BIN names a directory. */
function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (set PG_BIN)');
  return join(root, versions[0], 'bin');
}

/**
 * A throwaway PostgreSQL cluster (initdb in a temporary directory, trust authentication, no fsync)
 * listening on 127.0.0.1 at a free port. PostgreSQL refuses to run as root, so as root it runs as `postgres`.
 */
export class PrivatePostgres {
  private readonly killOnExit = () => {
    try {
      this.pgCtl(['-m', 'immediate', 'stop']);
    } catch {
      /* already stopped */
    }
  };

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'askdata-pg-'));
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(dir, uid, gid);
    }
    const pg = new PrivatePostgres(await freePort(), dir, postgresBin());
    pg.run('initdb', ['-D', pg.dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await pg.start();
    process.once('exit', pg.killOnExit);
    return pg;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** The `postgres` database: for creating and dropping the databases of a run. */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c max_connections=200',
      // Speed without lying about commits: a crash of the server process (not of the machine) keeps every commit
      // that was acknowledged, since commits still wait for their WAL to reach the operating system.
      '-c fsync=off',
      '-c full_page_writes=off',
    ].join(' ');
    this.pgCtl(['-l', join(this.dir, 'server.log'), '-o', options, '-t', '60', 'start']);
    await waitForPort(this.port, 'PostgreSQL');
  }

  /** `fast` ends every session at once (what an operator's restart does); `immediate` is a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    this.pgCtl(['-m', mode, '-t', '60', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      this.pgCtl(['-m', 'immediate', 'stop']);
    } catch {
      /* not running */
    }
    process.removeListener('exit', this.killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pgCtl(args: string[]): void {
    this.run('pg_ctl', ['-D', this.dataDir, '-w', ...args]);
  }

  private run(tool: string, args: string[]): void {
    const cmd = join(this.bin, tool);
    const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
    execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: this.dir });
  }
}

/**
 * The bus of a distributed benchmark run: with `--private-nats`, a NATS server of the run's own (so that no other
 * deployment on the machine answers its requests); otherwise NATS_URL or the local one.
 */
export async function benchBus(distributed: boolean): Promise<{ natsUrl?: string; stop(): Promise<void> }> {
  if (!distributed || !process.argv.includes('--private-nats')) return { stop: async () => undefined };
  const nats = await PrivateNats.start();
  return { natsUrl: nats.url, stop: () => nats.destroy() };
}
