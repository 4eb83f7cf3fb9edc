import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { IndexVacuum, VACUUM_STATEMENT } from './index-vacuum';

describe('IndexVacuum', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  /** A database whose vacuums finish when the test says so. */
  function database() {
    const runs: Array<() => void> = [];
    const statements: string[] = [];
    const ds = {
      query: (sql: string) => {
        statements.push(sql);
        return new Promise<void>((resolve) => runs.push(resolve));
      },
    } as unknown as DataSource;
    const finish = async () => {
      runs.shift()?.();
      await new Promise((r) => setImmediate(r));
    };
    return { ds, statements, finish };
  }

  it('vacuums the index tables once the changed postings reach the threshold, one vacuum at a time', async () => {
    const db = database();
    const vacuum = new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 });
    vacuum.changed(600);
    expect(db.statements).toEqual([]);
    vacuum.changed(400);
    expect(db.statements).toEqual([VACUUM_STATEMENT]);
    // Changes during the vacuum wait for it; they then count towards the next one.
    vacuum.changed(1500);
    expect(db.statements).toHaveLength(1);
    await db.finish();
    expect(db.statements).toHaveLength(2);
    await db.finish();
    await vacuum.idle();
  });

  it('vacuums once writing pauses with a tenth of the threshold pending, not for a handful of changes', async () => {
    jest.useFakeTimers();
    const db = database();
    const vacuum = new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 });
    vacuum.changed(50);
    jest.advanceTimersByTime(60_000);
    expect(db.statements).toEqual([]);
    vacuum.changed(60);
    jest.advanceTimersByTime(1500);
    vacuum.changed(10);
    // Each change restarts the wait: writing has not paused yet.
    jest.advanceTimersByTime(1500);
    expect(db.statements).toEqual([]);
    jest.advanceTimersByTime(600);
    expect(db.statements).toEqual([VACUUM_STATEMENT]);
  });

  it('does nothing when switched off (0) or after shutdown, and survives a failed vacuum', async () => {
    const off = database();
    new IndexVacuum(off.ds, { INDEX_VACUUM_ROWS: 0 }).changed(1e9);
    expect(off.statements).toEqual([]);

    const failing = { query: jest.fn().mockRejectedValueOnce(new Error('canceling statement due to user request')).mockResolvedValue(undefined) };
    const vacuum = new IndexVacuum(failing as unknown as DataSource, { INDEX_VACUUM_ROWS: 10 });
    vacuum.changed(10);
    await vacuum.idle();
    vacuum.changed(10);
    await vacuum.idle();
    expect(failing.query).toHaveBeenCalledTimes(2);
    vacuum.onApplicationShutdown();
    vacuum.changed(100);
    expect(failing.query).toHaveBeenCalledTimes(2);
  });
});
