/**
 * Error codes that cross the bus. `instanceof` does not survive a process boundary, so every service
 * failure travels as a {@link BusError} and the gateway maps its code to an HTTP status.
 */
export enum ErrorCode {
  Validation = 'VALIDATION',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  BadRequest = 'BAD_REQUEST',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  RateLimited = 'RATE_LIMITED',
  Unavailable = 'UNAVAILABLE',
  Internal = 'INTERNAL',
}

/** Field path (dots and indexes, e.g. `items.3.tenant`) to messages. */
export type FieldErrors = Record<string, string[]>;

export interface BusError {
  code: ErrorCode;
  message: string;
  /** For {@link ErrorCode.Validation}: the field errors. */
  details?: FieldErrors;
}

export function isBusError(value: unknown): value is BusError {
  if (typeof value !== 'object' || value === null) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && (Object.values(ErrorCode) as string[]).includes(code);
}
