import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { FieldErrors, fieldMessage, Msg } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { queryShape } from './query-shape';

/** A query DTO without parameters: every parameter given to a route that takes none is one it does not know. */
class NoParameters {}

/**
 * A /v1 route refuses what it does not take rather than ignore it, 422 naming it, as lists refuse query parameters
 * they do not know and bodies fields they do not have: ignored, `POST /v1/upserts?collection=faq` would put the items
 * in `default`, `POST /v1/search?limit=1` answer ten results, `GET /v1/items` with `{"collection": "faq"}` list every
 * collection. A route without query parameters refuses any; one without a body refuses any but `{}`. Routes that take
 * them (`@Query()`, `@Body()`) check them in `DtoPipe`.
 */
@Injectable()
export class StrayInputInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.path.startsWith('/v1/')) {
      const takes = routeTakes(context);
      const errors: FieldErrors = takes.query ? {} : queryShape(NoParameters, req.query).errors;
      if (!takes.body) Object.assign(errors, bodyErrors(req));
      if (Object.keys(errors).length) throw ServiceError.validation(errors);
    }
    return next.handle();
  }
}

/** The fields of a body sent to a route that takes none (`{}` and no body at all are nothing). */
function bodyErrors(req: Request): FieldErrors {
  const body: unknown = req.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    return Object.fromEntries(Object.keys(body).map((key) => [key, [fieldMessage(Msg.unknownField, key)]]));
  }
  const sent = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  return sent ? { body: ['This request takes no body.'] } : {};
}

function routeTakes(context: ExecutionContext): { query: boolean; body: boolean } {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {}) as Record<string, unknown>;
  const types = new Set(Object.keys(args).map((key) => key.split(':')[0]));
  return { query: types.has(String(RouteParamtypes.QUERY)), body: types.has(String(RouteParamtypes.BODY)) };
}
