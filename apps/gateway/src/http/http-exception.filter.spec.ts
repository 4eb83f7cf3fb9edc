import { ArgumentsHost, NotFoundException } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { HttpExceptionFilter } from './http-exception.filter';
import { httpStatusOf } from './status';

function run(e: unknown): { status: number; body: unknown } {
  const out = { status: 0, body: undefined as unknown };
  const res = {
    headersSent: false,
    locals: {} as Record<string, unknown>,
    status(code: number) {
      out.status = code;
      return this;
    },
    json(body: unknown) {
      out.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new HttpExceptionFilter().catch(e, host);
  return out;
}

describe('error mapping', () => {
  it.each([
    [ErrorCode.Validation, 422],
    [ErrorCode.NotFound, 404],
    [ErrorCode.Conflict, 409],
    [ErrorCode.Unauthenticated, 401],
    [ErrorCode.BadRequest, 400],
    [ErrorCode.PayloadTooLarge, 413],
    [ErrorCode.RateLimited, 429],
    [ErrorCode.Unavailable, 503],
  ])('%s -> %d', (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
  });

  it('writes validation errors as {message, errors}', () => {
    const { status, body } = run(ServiceError.validation({ 'items.0.data': ['The items.0.data field is required.'], text: ['x', 'y'] }));
    expect(status).toBe(422);
    expect(body).toEqual({
      message: 'The items.0.data field is required.',
      errors: { 'items.0.data': ['The items.0.data field is required.'], text: ['x', 'y'] },
    });
  });

  it('writes other service errors as {message} only', () => {
    expect(run(ServiceError.notFound('Item'))).toEqual({ status: 404, body: { message: 'Item not found.' } });
    expect(run(new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.'))).toEqual({ status: 401, body: { message: 'Unauthenticated.' } });
  });

  it('answers unknown routes with a plain 404 message', () => {
    expect(run(new NotFoundException('Cannot GET /v2'))).toEqual({ status: 404, body: { message: 'Not found.' } });
  });

  it('answers 503 when the database is unreachable, and hides unexpected errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(run(refused).status).toBe(503);
    expect(run(new TypeError('x is undefined'))).toEqual({ status: 500, body: { message: 'Internal error.' } });
  });
});
