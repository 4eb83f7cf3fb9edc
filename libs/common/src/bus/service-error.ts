import { RpcException } from '@nestjs/microservices';
import { BusError, ErrorCode, FieldErrors } from '@askdata/contracts';

/** A typed failure. Thrown by services (it crosses the bus as a {@link BusError}) and by the gateway itself. */
export class ServiceError extends RpcException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldErrors,
  ) {
    super({ code, message, ...(details ? { details } : {}) } satisfies BusError);
  }

  toBusError(): BusError {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }

  static notFound(what: string): ServiceError {
    return new ServiceError(ErrorCode.NotFound, `${what} not found.`);
  }

  static validation(errors: FieldErrors): ServiceError {
    return new ServiceError(ErrorCode.Validation, validationSummary(errors), errors);
  }

  static invalidField(path: string, message: string): ServiceError {
    return ServiceError.validation({ [path]: [message] });
  }

  static forbidden(message: string): ServiceError {
    return new ServiceError(ErrorCode.Forbidden, message);
  }

  static conflict(message: string): ServiceError {
    return new ServiceError(ErrorCode.Conflict, message);
  }

  static unavailable(message: string): ServiceError {
    return new ServiceError(ErrorCode.Unavailable, message);
  }

  static fromBusError(e: BusError): ServiceError {
    return new ServiceError(e.code, e.message, e.details);
  }
}

/** The message of a 422: the first error, as decisions.md gives it (`{message: "<first error>", errors}`). */
export function validationSummary(errors: FieldErrors): string {
  return Object.values(errors).flat()[0] ?? 'The given data was invalid.';
}
