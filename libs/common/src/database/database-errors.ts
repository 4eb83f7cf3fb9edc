const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03', // admin shutdown, crash shutdown, cannot connect now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
  '53300', // too many connections
  '57014', // canceled: a statement ran past DATABASE_STATEMENT_TIMEOUT_MS
]);
/**
 * TypeORM releases a query runner as soon as its connection raises an error (the server went away mid-transaction),
 * so the transaction's next statement fails with one of these rather than with the connection's error. Our code
 * never releases a runner by hand: met at run time, they mean the connection was lost and nothing was committed.
 */
const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/**
 * True when an error means the database cannot be reached (503), as opposed to a bad query (a bug). A pool whose
 * connections stay taken past its connection timeout counts: the database is too busy to answer in time.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; depth++) {
    const err = cur as { code?: unknown; name?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof err.code === 'string' && UNAVAILABLE_CODES.has(err.code)) return true;
    if (typeof err.name === 'string' && RELEASED_RUNNER_ERRORS.has(err.name)) return true;
    if (
      typeof err.message === 'string' &&
      /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection|timeout exceeded when trying to connect/i.test(err.message)
    ) {
      return true;
    }
    cur = err.driverError ?? err.cause;
  }
  return false;
}

/** True when the statement broke a unique constraint (PostgreSQL 23505): a row with that key exists. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: unknown; driverError?: { code?: unknown } } | null;
  return err?.code === '23505' || err?.driverError?.code === '23505';
}
