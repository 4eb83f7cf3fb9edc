import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { REQUEST_ID_HEADER, requestIdFrom, runWithRequestId } from './request-context';

/** Runs each bus handler inside the correlation id its caller sent in the message headers. */
@Injectable()
export class BusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    const header = ctx instanceof NatsContext ? ctx.getHeaders()?.get(REQUEST_ID_HEADER) : undefined;
    const requestId = requestIdFrom(header || undefined);
    return new Observable((subscriber) => runWithRequestId(requestId, () => next.handle().subscribe(subscriber)));
  }
}
