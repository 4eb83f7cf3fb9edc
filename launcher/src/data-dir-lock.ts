import { hostname } from 'node:os';
import { linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file under DATA_DIR that says which process holds it. */
export const LOCK_FILE = 'askdata.pid';

/** A data directory held by this process until `release`. */
export interface DataDirLock {
  release(): void;
}

/**
 * Holds `dataDir` for this process: two embedded databases writing the same files corrupt them, so a second
 * standalone service started on a data directory in use (another terminal, a restart begun before the old process
 * ended) refuses to start, naming the process that holds it. The holder is written to `askdata.pid` (pid and host);
 * a file left by a process that is no longer running (a crash, a killed container) is taken over. A holder on
 * another host (a shared volume) cannot be checked from here and is taken over too.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const me = `${process.pid}\n${hostname()}\n`;
  for (let tries = 0; ; tries++) {
    const staging = `${file}.${process.pid}`;
    writeFileSync(staging, me);
    try {
      // A link fails when the file exists: of two processes starting at once, one gets it.
      linkSync(staging, file);
      return { release: () => releaseIfMine(file, me) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 2) throw e;
    } finally {
      rmSync(staging, { force: true });
    }
    const holder = holderOf(file);
    if (holder && holder.host === hostname() && holder.pid !== process.pid && running(holder.pid)) {
      throw new Error(
        `${dataDir} is in use by process ${holder.pid}: one askdata standalone service at a time can use a data directory. ` +
          `Stop that one first, or give this one another DATA_DIR (if no such process runs, remove ${file}).`,
      );
    }
    // Left by a process that is gone: taken over.
    try {
      unlinkSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

function holderOf(file: string): { pid: number; host: string } | null {
  try {
    const [pid, host] = readFileSync(file, 'utf8').split('\n');
    return /^\d+$/.test(pid) ? { pid: Number(pid), host: host ?? '' } : null;
  } catch {
    return null;
  }
}

/** Whether a process of that id runs (one this user may not signal runs too). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfMine(file: string, me: string): void {
  try {
    if (readFileSync(file, 'utf8') === me) unlinkSync(file);
  } catch {
    /* gone already */
  }
}
