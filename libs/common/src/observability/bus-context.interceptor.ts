import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { pastDeadline } from '../bus/deadline';
import { DEADLINE_HEADER, deadlineFrom, REQUEST_ID_HEADER, requestIdFrom, runWithRequestContext } from './request-context';

/**
 * Runs each bus handler inside the correlation id and the deadline its caller sent in the message headers. A
 * request whose deadline has passed when it arrives (it waited in a queue while its caller gave up) is not handled.
 */
@Injectable()
export class BusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    const headers = ctx instanceof NatsContext ? ctx.getHeaders() : undefined;
    const requestId = requestIdFrom(headers?.get(REQUEST_ID_HEADER) || undefined);
    const deadline = deadlineFrom(headers?.get(DEADLINE_HEADER) || undefined);
    if (deadline !== undefined && deadline <= Date.now()) return throwError(() => pastDeadline('it was handled'));
    return new Observable((subscriber) => runWithRequestContext({ requestId, deadline }, () => next.handle().subscribe(subscriber)));
  }
}
