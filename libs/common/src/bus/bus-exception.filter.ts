import { ArgumentsHost, Catch, HttpException, Logger, RpcExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { BusError, ErrorCode, isBusError } from '@askdata/contracts';
import { Observable, throwError } from 'rxjs';
import { isDatabaseUnavailable } from '../database/database-errors';
import { ServiceError } from './service-error';

/**
 * Every failure of a bus handler leaves the service as a typed {@link BusError}, never a stack trace. (A service's
 * few HTTP routes, health and metrics, get the framework's status and body.)
 */
@Catch()
export class BusExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('BusExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (host.getType() === 'http') {
      const res = host.switchToHttp().getResponse<Response>();
      if (exception instanceof HttpException) res.status(exception.getStatus()).json(exception.getResponse());
      else res.status(500).json({ message: 'Internal error.' });
      return undefined as never;
    }
    return throwError(() => this.toBusError(exception));
  }

  private toBusError(e: unknown): BusError {
    if (e instanceof ServiceError) return e.toBusError();
    if (isBusError(e)) return e;
    if (isDatabaseUnavailable(e)) {
      this.logger.warn(`database unavailable: ${(e as Error).message}`);
      return { code: ErrorCode.Unavailable, message: 'The database is unavailable. Try again shortly.' };
    }
    this.logger.error(e instanceof Error ? (e.stack ?? e.message) : JSON.stringify(e));
    return { code: ErrorCode.Internal, message: 'Internal error.' };
  }
}
