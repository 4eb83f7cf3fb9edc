import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ServiceError } from '@askdata/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { queryShape } from './query-shape';

/** A query DTO without parameters: every parameter given to a route that takes none is one it does not know. */
class NoParameters {}

/**
 * A /v1 route that takes no query parameters refuses any it is given, 422 naming it, as lists refuse those they do
 * not know: ignored, `POST /v1/upserts?collection=faq` would put the items in `default`, and `POST /v1/search?limit=1`
 * answer ten results. Routes that take some (`@Query()`) check them in `DtoPipe`.
 */
@Injectable()
export class StrayQueryInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.path.startsWith('/v1/') && !takesQuery(context)) {
      const { errors } = queryShape(NoParameters, req.query);
      if (Object.keys(errors).length) throw ServiceError.validation(errors);
    }
    return next.handle();
  }
}

function takesQuery(context: ExecutionContext): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {}) as Record<string, unknown>;
  return Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.QUERY));
}
