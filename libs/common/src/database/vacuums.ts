import type { DataSource } from 'typeorm';

/** What a pg client emits for a notice or warning. */
interface Notice {
  code?: string;
  message?: string;
}

interface NoticeEmitter {
  on(event: 'notice', listener: (notice: Notice) => void): unknown;
  off(event: 'notice', listener: (notice: Notice) => void): unknown;
}

/** PostgreSQL's warning for a table a `VACUUM` or `ANALYZE` with SKIP_LOCKED skipped (55P03, lock not available). */
const SKIPPING = /^skipping (?:vacuum|analyze) of "(.+)" --- lock not available$/;

/**
 * Runs `statements` (each a `VACUUM (SKIP_LOCKED)` or `ANALYZE (SKIP_LOCKED)` of a table) one after the other on one
 * database session, stopping early once `stop` says so, and says which tables they skipped. SKIP_LOCKED skips a table
 * without an error while another session vacuums or analyses it (autovacuum, another replica); PostgreSQL then warns
 * the session, naming the table. A vacuum that finished meanwhile does not stand for one: autovacuum may have begun it
 * before the changes this one was for.
 */
export async function runSkipLocked(ds: Pick<DataSource, 'createQueryRunner'>, statements: readonly string[], stop: () => boolean = () => false): Promise<string[]> {
  const runner = ds.createQueryRunner();
  const skipped: string[] = [];
  const heard = (notice: Notice) => {
    const m = notice.code === '55P03' ? SKIPPING.exec(notice.message ?? '') : null;
    if (m) skipped.push(m[1]);
  };
  const session = (await runner.connect()) as NoticeEmitter;
  session.on('notice', heard);
  try {
    for (const statement of statements) {
      if (stop()) break;
      await runner.query(statement);
    }
  } finally {
    session.off('notice', heard);
    await runner.release();
  }
  return skipped;
}
