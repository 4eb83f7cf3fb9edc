import { ArgumentsHost, Catch, HttpException, RpcExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { Observable, throwError } from 'rxjs';
import { toBusError } from './bus-handlers';

/**
 * Every failure of a bus handler leaves the service as a typed {@link BusError}, never a stack trace
 * ({@link toBusError}). (A service's few HTTP routes, health and metrics, get the framework's status and body.)
 */
@Catch()
export class BusExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (host.getType() === 'http') {
      const res = host.switchToHttp().getResponse<Response>();
      if (exception instanceof HttpException) res.status(exception.getStatus()).json(exception.getResponse());
      else res.status(500).json({ message: 'Internal error.' });
      return undefined as never;
    }
    return throwError(() => toBusError(exception));
  }
}
