import { INestApplicationContext, Logger } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { PARAM_ARGS_METADATA, PATTERN_HANDLER_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants';
import { PatternHandler } from '@nestjs/microservices/enums/pattern-handler.enum';
import { RpcParamtype } from '@nestjs/microservices/enums/rpc-paramtype.enum';
import { BusError, ErrorCode, isBusError, isUuid, Subject, Subjects, TENANCIES } from '@askdata/contracts';
import { isDatabaseUnavailable } from '../database/database-errors';
import { inBackground, inForeground } from '../database/priority-pool';
import { DEADLINE_HEADER, deadlineFrom, REQUEST_ID_HEADER, requestIdFrom, runWithRequestContext } from '../observability/request-context';
import { pastDeadline } from './deadline';
import { ServiceError } from './service-error';

/**
 * Ingestion's bulk writes: their database work yields to reads (`inBackground`). Everything else a service handles
 * is a client's request (accepting an upsert too) and goes first.
 */
const BACKGROUND: ReadonlySet<string> = new Set<Subject>([Subjects.catalog.batchApply, Subjects.retrieval.chunksReplace]);

/** The lane a bus request's database work runs in: bulk writes in the background, the rest first. */
function laneOf(subject: string): <T>(fn: () => T) => T {
  return BACKGROUND.has(subject) ? inBackground : inForeground;
}

/**
 * Every scoped bus request must carry a well-formed scope: a service never runs a query without the project
 * (and tenancy) the gateway resolved from the API key.
 */
export function checkScope(value: unknown): void {
  if (typeof value === 'object' && value !== null && 'scope' in value) {
    const scope = value.scope as { projectId?: unknown; tenancy?: unknown } | null;
    if (!scope || !isUuid(scope.projectId) || !(TENANCIES as readonly unknown[]).includes(scope.tenancy)) {
      throw new ServiceError(ErrorCode.BadRequest, 'Malformed request scope.');
    }
  }
}

const log = new Logger('BusExceptionFilter');

/** A bus handler's failure as it leaves the service: a typed {@link BusError}, never a stack trace. */
export function toBusError(e: unknown): BusError {
  if (e instanceof ServiceError) return e.toBusError();
  if (isBusError(e)) return e;
  if (isDatabaseUnavailable(e)) {
    log.warn(`database unavailable: ${(e as Error).message}`);
    return { code: ErrorCode.Unavailable, message: 'The database is unavailable. Try again shortly.' };
  }
  log.error(e instanceof Error ? (e.stack ?? e.message) : JSON.stringify(e));
  return { code: ErrorCode.Internal, message: 'Internal error.' };
}

/** A bus request's headers as both transports carry them (NATS headers, or the in-process bus's copy of them). */
export interface BusHeaders {
  get(name: string): string;
}

/**
 * Runs a bus request's handling in the correlation id and deadline its caller sent in its headers (a fresh id when
 * it sent none) and in its subject's lane; throws, running nothing, when that deadline has passed as it arrives (it
 * waited in a queue while its caller gave up).
 */
export function inRequestContext<T>(subject: string, headers: BusHeaders | undefined, fn: () => T): T {
  const requestId = requestIdFrom(headers?.get(REQUEST_ID_HEADER) || undefined);
  const deadline = deadlineFrom(headers?.get(DEADLINE_HEADER) || undefined);
  if (deadline !== undefined && deadline <= Date.now()) throw pastDeadline('it was handled');
  return laneOf(subject)(() => runWithRequestContext({ requestId, deadline }, fn));
}

/** What a request handler answers: its result, or its failure. */
export type BusReply = { response: unknown } | { err: BusError };

type Handler = (payload: unknown) => unknown;

/**
 * The request handlers of an app's controllers (`@MessagePattern` methods taking the payload alone, as every
 * service's do), called by the bus's servers without the framework's RPC pipeline (its context, interceptor, pipe
 * and filter objects and the observables between them, about 0.2 ms of CPU a request): {@link handle} does
 * what the app's global interceptor, pipe and filter do (`BusContextInterceptor`, `ScopePipe`, `BusExceptionFilter`,
 * which still serve a handler taking anything else).
 */
export class BusHandlers {
  private readonly handlers = new Map<string, Handler>();

  /** The app's handlers that take the payload alone, by subject. */
  static of(app: INestApplicationContext): BusHandlers {
    const found = new BusHandlers();
    for (const module of app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const instance = wrapper.instance as Record<string, unknown> | undefined;
        if (!instance || !wrapper.metatype) continue;
        const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
        for (const name of Object.getOwnPropertyNames(prototype)) {
          const method = prototype[name];
          if (name === 'constructor' || typeof method !== 'function') continue;
          if (Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) !== PatternHandler.MESSAGE) continue;
          const params = (Reflect.getMetadata(PARAM_ARGS_METADATA, wrapper.metatype, name) ?? {}) as Params;
          if (!takesPayloadAlone(params, method.length)) continue;
          for (const pattern of (Reflect.getMetadata(PATTERN_METADATA, method) ?? []) as unknown[]) {
            if (typeof pattern === 'string') found.handlers.set(pattern, (payload) => (method as Handler).call(instance, payload));
          }
        }
      }
    }
    return found;
  }

  /** Whether `subject` is handled here. */
  has(subject: string): boolean {
    return this.handlers.has(subject);
  }

  /**
   * Handles a request on `subject`: not at all when its deadline has passed as it arrives (it waited in a queue
   * while its caller gave up), else in its caller's correlation id and deadline and in its lane, its scope checked.
   */
  async handle(subject: string, payload: unknown, headers: BusHeaders | undefined): Promise<BusReply> {
    const handler = this.handlers.get(subject);
    try {
      if (!handler) throw new ServiceError(ErrorCode.Unavailable, `No service answers ${subject}.`);
      const response = await inRequestContext(subject, headers, () => {
        checkScope(payload);
        return handler(payload);
      });
      return { response };
    } catch (e) {
      return { err: toBusError(e) };
    }
  }
}

/** A handler's decorated parameters, by `<type>:<index>`. */
type Params = Record<string, { index: number; data?: unknown; pipes?: unknown[] }>;

/** Whether a handler's parameters are the payload alone (`@Payload()`, no property or pipe), or none. */
function takesPayloadAlone(params: Params, declared: number): boolean {
  const entries = Object.entries(params);
  if (entries.length === 0) return declared === 0;
  if (entries.length !== 1 || declared > 1) return false;
  const [key, param] = entries[0];
  return key === `${RpcParamtype.PAYLOAD}:0` && param.data === undefined && !param.pipes?.length;
}
