import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE, lockDataDir } from './data-dir-lock';

describe('lockDataDir', () => {
  let dir: string;
  let other: ChildProcess | null = null;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'))));
  afterEach(() => {
    other?.kill('SIGKILL');
    other = null;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A running process of another id, as if it held the directory. */
  const running = (): number => {
    other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    return other.pid!;
  };
  const file = () => join(dir, LOCK_FILE);

  it('holds the directory for this process and lets go of it on release', () => {
    const lock = lockDataDir(dir);
    expect(readFileSync(file(), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
    lock.release();
    expect(existsSync(file())).toBe(false);
    lockDataDir(dir).release();
  });

  it('refuses a directory another running process holds, naming it, and leaves its file alone', () => {
    const pid = running();
    writeFileSync(file(), `${pid}\n${hostname()}\n`);
    expect(() => lockDataDir(dir)).toThrow(`${dir} is in use by process ${pid}`);
    expect(readFileSync(file(), 'utf8')).toBe(`${pid}\n${hostname()}\n`);
  });

  it('takes over a directory whose holder is gone (a crash) or on another host', () => {
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const pid = gone.pid!;
    return new Promise<void>((done) => gone.once('exit', () => done())).then(() => {
      for (const [holder, host] of [
        [pid, hostname()],
        [running(), 'another-host'],
      ] as const) {
        writeFileSync(file(), `${holder}\n${host}\n`);
        const lock = lockDataDir(dir);
        expect(readFileSync(file(), 'utf8')).toBe(`${process.pid}\n${hostname()}\n`);
        lock.release();
      }
    });
  });

  it('does not remove a file another process wrote since', () => {
    const lock = lockDataDir(dir);
    const pid = running();
    writeFileSync(file(), `${pid}\n${hostname()}\n`);
    lock.release();
    expect(readFileSync(file(), 'utf8')).toBe(`${pid}\n${hostname()}\n`);
  });
});
