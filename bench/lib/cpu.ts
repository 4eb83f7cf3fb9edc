import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';

/** USER_HZ: /proc counts CPU time in ticks of 10 ms. */
const TICK_MS = 10;

/** CPU time (user and system) of a process or thread from its /proc stat line, in ms; 0 once it has ended. */
function statMs(path: string): number {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU time of processes so far (every thread), in ms: less moved by other load than wall time. */
export function cpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + statMs(`/proc/${pid}/stat`), 0);
}

/** CPU time of a process's threads so far, in ms, by thread id (the main thread's id is the pid). */
export function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) out.set(Number(tid), statMs(`/proc/${pid}/task/${tid}/stat`));
  } catch {
    // Ended.
  }
  return out;
}

/** The PostgreSQL sessions (server process ids) connected to the database of `url`. */
export async function sessionPids(url: string): Promise<number[]> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  } finally {
    await db.end();
  }
}

/** PostgreSQL's log, server-wide (`pg_stat_wal`): bytes written to it, and how often it was written and flushed. */
export interface WalStats {
  bytes: number;
  writes: number;
  flushes: number;
}

export async function walStats(url: string): Promise<WalStats> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ bytes: string; writes: string; flushes: string }>(
      'SELECT wal_bytes::text AS bytes, wal_write::text AS writes, wal_sync::text AS flushes FROM pg_stat_wal',
    );
    return { bytes: Number(rows[0].bytes), writes: Number(rows[0].writes), flushes: Number(rows[0].flushes) };
  } finally {
    await db.end();
  }
}
