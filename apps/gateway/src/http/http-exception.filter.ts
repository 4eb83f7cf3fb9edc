import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { isDatabaseUnavailable, ServiceError } from '@askdata/common';
import type { Response } from 'express';
import { httpStatusOf } from './status';

/** Every error leaves the API in the contract's shape: `{message}` or `{message, errors}`. Never a stack trace. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    const { status, body } = errorResponse(exception, this.logger);
    res.locals.errorCode = exception instanceof ServiceError ? exception.code : String(status);
    res.status(status).json(body);
  }
}

/** An error's status and body in the contract's shape; what is not a known kind of error is logged and is a 500. */
export function errorResponse(e: unknown, logger: Logger): { status: number; body: { message: string; errors?: Record<string, string[]> } } {
  if (e instanceof ServiceError) {
    const body = e.code === ErrorCode.Validation ? { message: e.message, errors: e.details ?? {} } : { message: e.message };
    return { status: httpStatusOf(e.code), body };
  }
  if (e instanceof HttpException) {
    const status = e.getStatus();
    const message = status === 404 ? 'Not found.' : typeof e.getResponse() === 'string' ? (e.getResponse() as string) : e.message;
    return { status, body: { message } };
  }
  if (isDatabaseUnavailable(e)) {
    return { status: 503, body: { message: 'The database is unavailable. Try again shortly.' } };
  }
  logger.error(e instanceof Error ? (e.stack ?? e.message) : JSON.stringify(e));
  return { status: 500, body: { message: 'Internal error.' } };
}
