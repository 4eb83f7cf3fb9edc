const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', // admin shutdown, crash shutdown, cannot connect now
  '08000', '08001', '08003', '08004', '08006', // connection exceptions
  '53300', // too many connections
]);

/** True when an error means the database cannot be reached (503), as opposed to a bad query (a bug). */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; depth++) {
    const err = cur as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof err.code === 'string' && UNAVAILABLE_CODES.has(err.code)) return true;
    if (typeof err.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(err.message)) {
      return true;
    }
    cur = err.driverError ?? err.cause;
  }
  return false;
}
