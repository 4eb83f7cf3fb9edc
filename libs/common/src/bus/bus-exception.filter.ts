import { ArgumentsHost, Catch, Logger, RpcExceptionFilter } from '@nestjs/common';
import { BusError, ErrorCode, isBusError } from '@askdata/contracts';
import { Observable, throwError } from 'rxjs';
import { isDatabaseUnavailable } from '../database/database-errors';
import { ServiceError } from './service-error';

/** Every failure of a bus handler leaves the service as a typed {@link BusError}, never a stack trace. */
@Catch()
export class BusExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('BusExceptionFilter');

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => this.toBusError(exception));
  }

  private toBusError(e: unknown): BusError {
    if (e instanceof ServiceError) return e.toBusError();
    if (isBusError(e)) return e;
    if (isDatabaseUnavailable(e)) {
      this.logger.warn(`database unavailable: ${(e as Error).message}`);
      return { code: ErrorCode.Unavailable, message: 'The database is unavailable. Try again shortly.' };
    }
    this.logger.error(e instanceof Error ? e.stack ?? e.message : JSON.stringify(e));
    return { code: ErrorCode.Internal, message: 'Internal error.' };
  }
}
