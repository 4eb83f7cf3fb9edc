import { ErrorCode } from '@askdata/contracts';

/** The one mapping from error code to HTTP status. Adding a code without a status fails to compile. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.Validation:
      return 422;
    case ErrorCode.NotFound:
      return 404;
    case ErrorCode.Conflict:
      return 409;
    case ErrorCode.Unauthenticated:
      return 401;
    case ErrorCode.Forbidden:
      return 403;
    case ErrorCode.BadRequest:
      return 400;
    case ErrorCode.PayloadTooLarge:
      return 413;
    case ErrorCode.RateLimited:
      return 429;
    case ErrorCode.Unavailable:
      return 503;
    case ErrorCode.Internal:
      return 500;
    default: {
      const unmapped: never = code;
      throw new Error(`unmapped error code ${String(unmapped)}`);
    }
  }
}
