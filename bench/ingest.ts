import { cpuMs, sessionPids, threadCpuMs, walStats, WalStats } from './lib/cpu';
import { SyntheticCorpus } from './lib/synthetic';
import { Api, machine, modeFromArgs, Running, startService } from './lib/service';

/**
 * Ingestion throughput: items per second from the first POST /v1/upserts to the last upsert `completed`; then the CPU
 * time each item cost, by process (its main thread, and its other threads: worker threads and V8's own), the
 * PostgreSQL sessions of the service's database (distributed) and this client, so that what a rate allows on the
 * machine's cores shows (items/s at most cores x 1,000,000 / total µs an item); distributed, what PostgreSQL wrote to
 * its log meanwhile, and how often it flushed it (server-wide: other work on the server counts too).
 *   node dist/bench/ingest.js [--distributed] [--items 20000] [--bytes 1000] [--batch 500]
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const count = arg('items', 20000);
  const bytes = arg('bytes', 1000);
  const batch = arg('batch', 500);
  const corpus = new SyntheticCorpus();
  const items = Array.from({ length: count }, (_, i) => corpus.item(i, bytes));
  const avg = Math.round(items.reduce((s, it) => s + JSON.stringify(it).length, 0) / items.length);
  console.log(`ingest: ${count} items of ~${avg} bytes, batches of ${batch}; ${mode}; ${machine()}`);
  const service = await startService(mode);
  try {
    const api = await Api.withProject(service);
    const before = await cpuNow(service);
    const t0 = performance.now();
    let accepted = 0;
    await api.upsertAll(items, { batch, parallel: 4, accepted: () => (accepted = (performance.now() - t0) / 1000) });
    const seconds = (performance.now() - t0) / 1000;
    console.log(`| mode | items | all accepted (s) | all completed (s) | items/s |`);
    console.log(`|---|---|---|---|---|`);
    console.log(`| ${mode} | ${count} | ${accepted.toFixed(1)} | ${seconds.toFixed(1)} | ${Math.round(count / seconds)} |`);
    printCpu(before, await cpuNow(service), count);
  } finally {
    await service.stop();
  }
}

interface CpuSnapshot {
  /** Per app process: its threads' CPU ms by thread id. */
  apps: Array<{ name: string; pid: number; threads: Map<number, number> }>;
  /** PostgreSQL sessions of the service's database: CPU ms by server process id. */
  sessions: Map<number, number>;
  wal: WalStats | null;
  clientMs: number;
}

async function cpuNow(service: Running): Promise<CpuSnapshot> {
  const apps = [...service.processes].flatMap(([app, ps]) => ps.map((p, i) => ({ name: ps.length > 1 ? `${app} ${i + 1}` : app, pid: p.pid!, threads: threadCpuMs(p.pid!) })));
  const sessions = new Map<number, number>();
  if (service.databaseUrl) for (const pid of await sessionPids(service.databaseUrl)) sessions.set(pid, cpuMs([pid]));
  const wal = service.databaseUrl ? await walStats(service.databaseUrl) : null;
  const usage = process.cpuUsage();
  return { apps, sessions, wal, clientMs: (usage.user + usage.system) / 1000 };
}

/** CPU µs an item: per process, its main thread and the rest; sessions that began during the load count whole. */
function printCpu(a: CpuSnapshot, b: CpuSnapshot, items: number): void {
  const us = (ms: number) => Math.round((ms * 1000) / items);
  console.log('');
  console.log('| CPU per item (µs) | all threads | main thread | other threads |');
  console.log('|---|---|---|---|');
  let total = 0;
  for (const app of b.apps) {
    const was = a.apps.find((x) => x.pid === app.pid)?.threads ?? new Map<number, number>();
    let main = 0;
    let rest = 0;
    for (const [tid, ms] of app.threads) {
      const d = ms - (was.get(tid) ?? 0);
      if (tid === app.pid) main += d;
      else rest += d;
    }
    total += main + rest;
    console.log(`| ${app.name} | ${us(main + rest)} | ${us(main)} | ${us(rest)} |`);
  }
  if (b.sessions.size) {
    let pg = 0;
    for (const [pid, ms] of b.sessions) pg += ms - (a.sessions.get(pid) ?? 0);
    total += pg;
    console.log(`| PostgreSQL, the ${b.sessions.size} sessions open at the end | ${us(pg)} | - | - |`);
  }
  total += b.clientMs - a.clientMs;
  console.log(`| this client | ${us(b.clientMs - a.clientMs)} | - | - |`);
  console.log(`| in all | ${us(total)} | - | - |`);
  if (a.wal && b.wal) {
    const [bytes, writes, flushes] = [b.wal.bytes - a.wal.bytes, b.wal.writes - a.wal.writes, b.wal.flushes - a.wal.flushes];
    console.log('');
    console.log(`PostgreSQL's log meanwhile: ${(bytes / 1e6).toFixed(1)} MB (${Math.round(bytes / items)} bytes an item), written ${writes} times, flushed ${flushes} times`);
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
