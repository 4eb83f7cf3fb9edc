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

/** Laravel's summary: the first message, plus how many more there are. */
export function validationSummary(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  if (all.length === 0) return 'The given data was invalid.';
  const more = all.length - 1;
  return more === 0 ? all[0] : `${all[0]} (and ${more} more error${more === 1 ? '' : 's'})`;
}
