import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import type { MsgHdrs } from 'nats';
import { Observable } from 'rxjs';
import { inRequestContext } from '../bus/bus-handlers';

/**
 * Runs each bus handler `BusHandlers` does not serve inside the correlation id and the deadline its caller sent in
 * the message headers, in the background when it is one of the bulk writes (`inRequestContext`). A request whose deadline has
 * passed when it arrives (it waited in a queue while its caller gave up) is not handled.
 */
@Injectable()
export class BusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    const headers = ctx instanceof NatsContext ? (ctx.getHeaders() as MsgHdrs | undefined) : undefined;
    const patterns = (Reflect.getMetadata(PATTERN_METADATA, context.getHandler()) ?? []) as unknown[];
    const subject = patterns.find((p): p is string => typeof p === 'string') ?? '';
    // The handler runs when its observable is subscribed to: there, in the context (a deadline passed is the
    // subscriber's error).
    return new Observable((subscriber) => inRequestContext(subject, headers, () => next.handle().subscribe(subscriber)));
  }
}
