import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import type { MsgHdrs } from 'nats';
import { Observable, throwError } from 'rxjs';
import { laneOf, requestContextOf } from '../bus/bus-handlers';
import { pastDeadline } from '../bus/deadline';
import { runWithRequestContext } from './request-context';

/**
 * Runs each bus handler `BusHandlers` does not serve inside the correlation id and the deadline its caller sent in
 * the message headers, in the background when it is one of the bulk writes (`laneOf`). A request whose deadline has
 * passed when it arrives (it waited in a queue while its caller gave up) is not handled.
 */
@Injectable()
export class BusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    const headers = ctx instanceof NatsContext ? (ctx.getHeaders() as MsgHdrs | undefined) : undefined;
    const { requestId, deadline } = requestContextOf(headers);
    if (deadline !== undefined && deadline <= Date.now()) return throwError(() => pastDeadline('it was handled'));
    const patterns = (Reflect.getMetadata(PATTERN_METADATA, context.getHandler()) ?? []) as unknown[];
    const subject = patterns.find((p): p is string => typeof p === 'string') ?? '';
    const lane = laneOf(subject);
    return new Observable((subscriber) => lane(() => runWithRequestContext({ requestId, deadline }, () => next.handle().subscribe(subscriber))));
  }
}
