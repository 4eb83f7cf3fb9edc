import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { Subject, Subjects } from '@askdata/contracts';
import type { MsgHdrs } from 'nats';
import { Observable, throwError } from 'rxjs';
import { pastDeadline } from '../bus/deadline';
import { inBackground, inForeground } from '../database/priority-pool';
import { DEADLINE_HEADER, deadlineFrom, REQUEST_ID_HEADER, requestIdFrom, runWithRequestContext } from './request-context';

/**
 * Ingestion's bulk writes: their database work yields to reads (`inBackground`). Everything else a service handles
 * is a client's request (accepting an upsert too) and goes first.
 */
const BACKGROUND: ReadonlySet<string> = new Set<Subject>([Subjects.catalog.batchApply, Subjects.retrieval.chunksReplace]);

/**
 * Runs each bus handler inside the correlation id and the deadline its caller sent in the message headers, in the
 * background when it is one of the bulk writes. A request whose deadline has passed when it arrives (it waited in
 * a queue while its caller gave up) is not handled.
 */
@Injectable()
export class BusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    const headers = ctx instanceof NatsContext ? (ctx.getHeaders() as MsgHdrs | undefined) : undefined;
    const requestId = requestIdFrom(headers?.get(REQUEST_ID_HEADER) || undefined);
    const deadline = deadlineFrom(headers?.get(DEADLINE_HEADER) || undefined);
    if (deadline !== undefined && deadline <= Date.now()) return throwError(() => pastDeadline('it was handled'));
    const patterns = (Reflect.getMetadata(PATTERN_METADATA, context.getHandler()) ?? []) as unknown[];
    const lane = patterns.some((p) => typeof p === 'string' && BACKGROUND.has(p)) ? inBackground : inForeground;
    return new Observable((subscriber) => lane(() => runWithRequestContext({ requestId, deadline }, () => next.handle().subscribe(subscriber))));
  }
}
