import { flush, sessionsOf } from '../../../../test/support/sessions';
import { BATCH_VACUUM_EVERY, BATCH_VACUUM_IDLE_MS, BATCH_VACUUM_STATEMENT, BatchVacuum } from './batch-vacuum';

describe('vacuum of the stored batches', () => {
  afterEach(() => jest.useRealTimers());

  /** Vacuums end when the test calls `finish`; a vacuum while `skipped` names the table is warned it skipped it. */
  function database() {
    const statements: string[] = [];
    const skipped: string[] = [];
    let finish = () => undefined as void;
    const ds = sessionsOf((sql: string) => {
      statements.push(sql);
      return new Promise<void>((ok) => (finish = ok));
    }, skipped);
    return { ds, statements, finish: () => finish(), skipped };
  }

  it('vacuums once enough batches were deleted, one vacuum at a time; those deleted meanwhile count for the next', async () => {
    const db = database();
    const vacuum = new BatchVacuum(db.ds);
    vacuum.note(BATCH_VACUUM_EVERY - 1);
    await flush();
    expect(db.statements).toEqual([]);
    vacuum.note(1);
    await flush();
    expect(db.statements).toEqual([BATCH_VACUUM_STATEMENT]);
    vacuum.note(BATCH_VACUUM_EVERY - 1);
    await flush();
    expect(db.statements).toHaveLength(1);
    db.finish();
    await vacuum.settled();
    vacuum.note(1);
    await flush();
    expect(db.statements).toHaveLength(2);
  });

  it('vacuums what is left once deletions pause, and nothing after shutdown', async () => {
    jest.useFakeTimers();
    const db = database();
    const vacuum = new BatchVacuum(db.ds);
    vacuum.note(3);
    jest.advanceTimersByTime(BATCH_VACUUM_IDLE_MS - 100);
    vacuum.note(2);
    // Each deletion restarts the wait.
    jest.advanceTimersByTime(BATCH_VACUUM_IDLE_MS - 100);
    await flush();
    expect(db.statements).toEqual([]);
    jest.advanceTimersByTime(200);
    await flush();
    expect(db.statements).toEqual([BATCH_VACUUM_STATEMENT]);
    db.finish();
    await vacuum.settled();
    // Nothing deleted since: a pause brings nothing more.
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(db.statements).toHaveLength(1);
    vacuum.note(1);
    vacuum.onApplicationShutdown();
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(db.statements).toHaveLength(1);
  });

  it('vacuums again once deletions pause when the vacuum skipped the table (autovacuum had it)', async () => {
    jest.useFakeTimers();
    const db = database();
    const vacuum = new BatchVacuum(db.ds);
    db.skipped.push('upsert_batches');
    vacuum.note(BATCH_VACUUM_EVERY);
    await flush();
    expect(db.statements).toEqual([BATCH_VACUUM_STATEMENT]);
    db.finish();
    await vacuum.settled();
    // Not at once: after a pause.
    expect(db.statements).toHaveLength(1);
    jest.advanceTimersByTime(BATCH_VACUUM_IDLE_MS + 100);
    await flush();
    expect(db.statements).toEqual([BATCH_VACUUM_STATEMENT, BATCH_VACUUM_STATEMENT]);
    db.finish();
    await vacuum.settled();
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(db.statements).toHaveLength(2);
  });

  it('survives a vacuum that fails', async () => {
    const ds = sessionsOf(() => Promise.reject(new Error('gone')));
    const vacuum = new BatchVacuum(ds);
    vacuum.note(BATCH_VACUUM_EVERY);
    await expect(vacuum.settled()).resolves.toBeUndefined();
  });
});
