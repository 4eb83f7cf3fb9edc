import { Logger } from '@nestjs/common';
import { flush, sessionsOf } from '../../../../test/support/sessions';
import { ANALYZE_STATEMENTS, IndexVacuum, VACUUM_STATEMENTS } from './index-vacuum';
import type { PostingKeyRebuild } from './posting-key-rebuild';

// A run is a statement a table, one after the other; the first names the run.
const [ANALYZE_STATEMENT] = ANALYZE_STATEMENTS;
const [VACUUM_STATEMENT] = VACUUM_STATEMENTS;

describe('IndexVacuum', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  /**
   * A database whose runs finish when the test says so: the first statement of a run waits for `finish`, the others
   * of the run are answered at once. `statements` holds the first statement of each run; `all`, every statement. A
   * vacuum of a table named in `skipped` is warned that it skipped it (none, unless the test says so).
   */
  function database() {
    const runs: Array<() => void> = [];
    const statements: string[] = [];
    const all: string[] = [];
    const skipped: string[] = [];
    const ds = sessionsOf((sql: string) => {
      all.push(sql);
      if (sql !== ANALYZE_STATEMENT && sql !== VACUUM_STATEMENT) return Promise.resolve();
      statements.push(sql);
      return new Promise<void>((resolve) => runs.push(resolve));
    }, skipped);
    const finish = async () => {
      await flush();
      runs.shift()?.();
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    return { ds, statements, all, skipped, finish };
  }

  /**
   * Vacuums at a threshold of 1,000 postings over a `database()`, whose look at the posting blocks after a vacuum is
   * `run` (by default, finding nothing to do).
   */
  function looking(run: jest.Mock = jest.fn().mockResolvedValue('not_needed')) {
    const db = database();
    return { db, run, vacuum: new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 }, { run } as unknown as PostingKeyRebuild) };
  }

  it('analyses the index tables once the postings written reach the threshold, one run at a time', async () => {
    const db = database();
    const vacuum = new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 });
    vacuum.changed(600);
    await flush();
    expect(db.statements).toEqual([]);
    vacuum.changed(400);
    await flush();
    // Only new postings: nothing to reclaim, so no vacuum while writes go on.
    expect(db.statements).toEqual([ANALYZE_STATEMENT]);
    // Changes during the run wait for it; they then count towards the next one.
    vacuum.changed(1500);
    await flush();
    expect(db.statements).toHaveLength(1);
    await db.finish();
    expect(db.statements).toEqual([ANALYZE_STATEMENT, ANALYZE_STATEMENT]);
    await db.finish();
    await vacuum.idle();
    // Each run analysed the tables, one statement each.
    expect(db.all).toEqual([...ANALYZE_STATEMENTS, ...ANALYZE_STATEMENTS]);
    vacuum.onApplicationShutdown();
  });

  it('vacuums as well once a tenth of the threshold was removed postings (replaced items leave dead rows)', async () => {
    const db = database();
    const vacuum = new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 });
    vacuum.changed(850, 50);
    vacuum.changed(50, 50);
    await flush();
    expect(db.statements).toEqual([VACUUM_STATEMENT]);
    await db.finish();
    // The vacuum took care of those removals: the next threshold only analyses.
    vacuum.changed(1000);
    await flush();
    expect(db.statements).toEqual([VACUUM_STATEMENT, ANALYZE_STATEMENT]);
    await db.finish();
    await vacuum.idle();
    expect(db.all).toEqual([...VACUUM_STATEMENTS, ...ANALYZE_STATEMENTS]);
    vacuum.onApplicationShutdown();
  });

  it('vacuums once writing pauses after a load that was only analysed', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const db = database();
    const vacuum = new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 });
    vacuum.changed(1000);
    await flush();
    expect(db.statements).toEqual([ANALYZE_STATEMENT]);
    await db.finish();
    jest.advanceTimersByTime(4900);
    await flush();
    expect(db.statements).toHaveLength(1);
    jest.advanceTimersByTime(200);
    await flush();
    expect(db.statements).toEqual([ANALYZE_STATEMENT, VACUUM_STATEMENT]);
    await db.finish();
    // Vacuumed: a pause brings nothing more.
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(db.statements).toHaveLength(2);
  });

  it('vacuums again after the next pause when a table was skipped (autovacuum or another replica had it)', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { db, run, vacuum } = looking();
    vacuum.changed(900, 100);
    db.skipped.push('posting_blocks');
    await db.finish();
    await vacuum.idle();
    expect(db.statements).toEqual([VACUUM_STATEMENT]);
    // A change meanwhile restarts the wait for a pause.
    jest.advanceTimersByTime(3000);
    vacuum.changed(1);
    jest.advanceTimersByTime(4900);
    await flush();
    expect(db.statements).toHaveLength(1);
    jest.advanceTimersByTime(200);
    await flush();
    expect(db.statements).toEqual([VACUUM_STATEMENT, VACUUM_STATEMENT]);
    await db.finish();
    await vacuum.idle();
    // Vacuumed this time, in a pause: the key is looked at (the table may be rewritten), and a pause brings nothing more.
    expect(run.mock.calls).toEqual([[{ paused: true }]]);
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(db.statements).toHaveLength(2);
    vacuum.onApplicationShutdown();
  });

  it('looks at the key and table once writes pause after vacuums while they went on, with no vacuum left to do', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { db, run, vacuum } = looking();
    vacuum.changed(900, 100);
    await db.finish();
    await vacuum.idle();
    expect(run.mock.calls).toEqual([[{ paused: false }]]);
    // A few more changes, too few for a vacuum, each restarting the wait.
    vacuum.changed(5, 5);
    jest.advanceTimersByTime(4000);
    vacuum.changed(5, 5);
    jest.advanceTimersByTime(4900);
    expect(run).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(200);
    await vacuum.idle();
    expect(db.statements).toEqual([VACUUM_STATEMENT]);
    expect(run.mock.calls).toEqual([[{ paused: false }], [{ paused: true }]]);
    // Looked at: a pause brings nothing more.
    jest.advanceTimersByTime(60_000);
    expect(run).toHaveBeenCalledTimes(2);
    vacuum.onApplicationShutdown();
  });

  it('vacuums once writing pauses with a tenth of the threshold pending, not for a handful of changes', async () => {
    jest.useFakeTimers();
    const db = database();
    const vacuum = new IndexVacuum(db.ds, { INDEX_VACUUM_ROWS: 1000 });
    vacuum.changed(50);
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(db.statements).toEqual([]);
    vacuum.changed(60);
    jest.advanceTimersByTime(4000);
    vacuum.changed(10);
    // Each change restarts the wait: writing has not paused yet.
    jest.advanceTimersByTime(4000);
    await flush();
    expect(db.statements).toEqual([]);
    jest.advanceTimersByTime(1100);
    await flush();
    expect(db.statements).toEqual([VACUUM_STATEMENT]);
  });

  it("looks at the posting blocks' key after each vacuum, not after an analyse, and goes on when that fails", async () => {
    const { db, run, vacuum } = looking(jest.fn().mockRejectedValueOnce(new Error('deadlock detected')).mockResolvedValue('rebuilt'));
    vacuum.changed(1000);
    await db.finish();
    await vacuum.idle();
    expect(run).not.toHaveBeenCalled();
    vacuum.changed(900, 100);
    await db.finish();
    await vacuum.idle();
    expect(run).toHaveBeenCalledTimes(1);
    // The failed rebuild is logged; the next vacuum runs and looks at the key again.
    vacuum.changed(900, 100);
    await flush();
    expect(db.statements).toEqual([ANALYZE_STATEMENT, VACUUM_STATEMENT, VACUUM_STATEMENT]);
    await db.finish();
    await vacuum.idle();
    // Vacuums at the threshold, while writes go on: not in a pause (no rewrite of the table).
    expect(run.mock.calls).toEqual([[{ paused: false }], [{ paused: false }]]);
    vacuum.onApplicationShutdown();
  });

  it('does nothing when switched off (0) or after shutdown, and survives a failed vacuum', async () => {
    const off = database();
    new IndexVacuum(off.ds, { INDEX_VACUUM_ROWS: 0 }).changed(1e9);
    await flush();
    expect(off.statements).toEqual([]);

    const failing = { query: jest.fn().mockRejectedValueOnce(new Error('canceling statement due to user request')).mockResolvedValue(undefined) };
    const vacuum = new IndexVacuum(sessionsOf(failing.query), { INDEX_VACUUM_ROWS: 10 });
    vacuum.changed(10);
    await vacuum.idle();
    vacuum.changed(10);
    await vacuum.idle();
    // The failed run stopped at its first statement; the next one ran them all.
    expect(failing.query).toHaveBeenCalledTimes(1 + ANALYZE_STATEMENTS.length);
    vacuum.onApplicationShutdown();
    vacuum.changed(100);
    await flush();
    expect(failing.query).toHaveBeenCalledTimes(1 + ANALYZE_STATEMENTS.length);
  });

  it("runs a run's statements one after another, and stops at one that fails", async () => {
    const pending: Array<{ sql: string; resolve: () => void; reject: (e: Error) => void }> = [];
    const ds = sessionsOf((sql: string) => new Promise<void>((resolve, reject) => pending.push({ sql, resolve, reject })));
    const tick = () => new Promise((r) => setImmediate(r));
    const vacuum = new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 10 });
    expect(ANALYZE_STATEMENTS.length).toBeGreaterThan(1);
    vacuum.changed(10);
    await flush();
    expect(pending.map((p) => p.sql)).toEqual([ANALYZE_STATEMENTS[0]]);
    pending[0].resolve();
    await tick();
    expect(pending.map((p) => p.sql)).toEqual(ANALYZE_STATEMENTS.slice(0, 2));
    for (const p of pending.slice(1)) p.resolve();
    await vacuum.idle();
    // The next run fails at its first statement and sends no other.
    vacuum.changed(10);
    await flush();
    const first = pending.length;
    expect(pending.map((p) => p.sql).slice(first - 1)).toEqual([ANALYZE_STATEMENTS[0]]);
    pending[first - 1].reject(new Error('canceling statement due to user request'));
    await vacuum.idle();
    await tick();
    expect(pending).toHaveLength(first);
    // The next run starts again from the first table.
    vacuum.changed(10);
    await flush();
    expect(pending.map((p) => p.sql).slice(first)).toEqual([ANALYZE_STATEMENTS[0]]);
    vacuum.onApplicationShutdown();
    // Shut down meanwhile: the run sends nothing more.
    pending[first].resolve();
    await vacuum.idle();
    expect(pending).toHaveLength(first + 1);
  });
});
