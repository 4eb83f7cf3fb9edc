/** The error body of every failed /v1 request: `{message}`, plus `errors` (dotted field paths) on a 422. */
export interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

/** Every error this client throws, except the caller's own abort (its signal's reason). */
export class AskdataError extends Error {
  override name = 'AskdataError';
}

/** The service answered with an error status; `body` is the contract's error body. */
export class ApiError extends AskdataError {
  override name = 'ApiError';
  /** The response's `X-Request-Id`, to quote when reporting a problem. */
  readonly requestId: string | null;

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Headers = new Headers(),
  ) {
    super(body.message);
    this.requestId = headers.get('x-request-id');
  }

  /** Seconds the response asks to wait (`Retry-After`), when it says. */
  get retryAfter(): number | null {
    const ms = retryAfterMs(this.headers.get('retry-after'), Date.now());
    return ms === null ? null : Math.ceil(ms / 1000);
  }
}

/** 401: a missing or invalid key; with a publishable key, a missing (multi-tenant project), invalid or expired session token. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

/**
 * 403: a publishable key used from an origin it does not allow, on a route it may not use, or naming another
 * tenant, user or collection than its session's.
 */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}

/** 404: an unknown id (or another project's). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 409: a follow-up on a query's chat, or a request with this Idempotency-Key still running. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}

/** 422: validation; `errors` maps dotted field paths (`items.3.tenant`) to messages. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  get errors(): Record<string, string[]> {
    return this.body.errors ?? {};
  }
}

/** 429: too many requests (or failed authentications); see `retryAfter`. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}

/** 503: a dependency of the service is down or the question ran out of time; nothing was half-written. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  401: AuthenticationError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

/** The typed error of a status. */
export function apiError(status: number, body: ErrorBody, headers?: Headers): ApiError {
  return new (BY_STATUS[status] ?? ApiError)(status, body, headers);
}

/** The request could not reach the service (DNS, connection refused or reset). */
export class ConnectionError extends AskdataError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The request (retries and waits included) took longer than its `timeoutMs`. */
export class TimeoutError extends AskdataError {
  override name = 'TimeoutError';
}

/** A streamed answer ended without its `done` or `error` event (the connection was cut). */
export class IncompleteStreamError extends AskdataError {
  override name = 'IncompleteStreamError';
}

/** `Retry-After` (seconds, or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
