import { CallHandler, createParamDecorator, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { ServiceError } from '@askdata/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, Observable } from 'rxjs';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { httpStatusOf } from '../http/status';
import { Caller } from '../auth/caller';
import { wantsStream } from '../v1/answer-streams';
import { subjectOf } from '../sessions/session-chats';
import { IdempotencyStore } from './idempotency.store';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on an answer repeated from the first request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Routes whose work is a question (they may take ANSWER_TIMEOUT_MS). */
const QUESTION_ROUTE = /^\/v1\/(query|chats(\/[^/]+\/messages)?)\/?$/;

type KeyedRequest = Request & { caller?: Caller; operationId?: string };

/** JSON with object keys in order, so that the same body sent twice hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request a key stands for: method, path with query, and body. */
export function fingerprintOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonical(body ?? null)}`)
    .digest('hex');
}

/** The key of the request, or null without one; 422 when it is not 1 to 255 visible ASCII characters. */
export function idempotencyKeyOf(req: Request): string | null {
  const header = req.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return null;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw ServiceError.invalidField('Idempotency-Key', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
  }
  return key;
}

/**
 * `Idempotency-Key` on the POST routes of /v1 (after the key and the rate limit, before validation): the first
 * request with a key does the work, and what it creates takes the key's operation id (`OperationId`), so that a
 * retry that runs again after a lost answer creates nothing new and gets what the first created. Its answer (a
 * success or a 4xx) is kept and every later request with the key and the same method, path and body gets it, with
 * `Idempotent-Replayed: true`; one that comes while the first still runs waits for it (`IdempotencyStore.begin`).
 * A 5xx is not kept: the next retry does the work again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<KeyedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    if ((req.method !== 'POST' && req.method !== 'DELETE') || !req.caller || !req.path.startsWith('/v1/')) return next.handle();
    const given = idempotencyKeyOf(req);
    if (given === null) return next.handle();
    // Visitors of a page share its publishable key: each session (or the key's session-less callers) keeps its own keys.
    const key =
      req.caller.kind === 'publishable'
        ? `pk:${createHash('sha256')
            .update(`${req.caller.keyId}\n${req.caller.session?.tenant ?? ''}\n${subjectOf(req.caller)}\n${given}`)
            .digest('hex')}`
        : given;
    if (QUESTION_ROUTE.test(req.path) && wantsStream(req)) {
      throw ServiceError.invalidField('Idempotency-Key', 'A streamed answer cannot be repeated: send Idempotency-Key without streaming.');
    }
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, ctx.getHandler()) ?? 201;
    return from(this.run(req, res, key, status, next));
  }

  private async run(req: KeyedRequest, res: Response, key: string, status: number, next: CallHandler): Promise<unknown> {
    const projectId = req.caller!.scope.projectId;
    const holdMs = (QUESTION_ROUTE.test(req.path) ? this.config.ANSWER_TIMEOUT_MS : this.config.BUS_TIMEOUT_MS) + 5000;
    const begun = await this.store.begin(projectId, key, fingerprintOf(req.method, req.originalUrl, req.body), holdMs, (s) => res.setHeader('Retry-After', String(s)));
    if (begun.kind === 'answered') {
      res.setHeader(REPLAYED_HEADER, 'true');
      if ('error' in begun.outcome) throw ServiceError.fromBusError(begun.outcome.error);
      return begun.outcome.data;
    }
    req.operationId = begun.operationId;
    let data: unknown;
    try {
      data = await lastValueFrom(next.handle());
    } catch (e) {
      const kept = e instanceof ServiceError && httpStatusOf(e.code) < 500;
      await (kept ? this.store.answered(projectId, key, httpStatusOf(e.code), { error: e.toBusError() }) : this.store.release(projectId, key)).catch((err: Error) =>
        this.logger.warn(`cannot record the answer of Idempotency-Key ${key}: ${err.message}`),
      );
      throw e;
    }
    // Not kept (the database is away): the key stays held until it would have timed out, then a retry runs
    // again under the same operation id and gets what this request created.
    await this.store.answered(projectId, key, status, { data }).catch((err: Error) => this.logger.warn(`cannot record the answer of Idempotency-Key ${key}: ${err.message}`));
    return data;
  }
}

/**
 * The id the thing a POST creates must take: the operation id of its `Idempotency-Key` (the same on every retry),
 * or undefined when the request has no key.
 */
export const OperationId = createParamDecorator((_: unknown, ctx: ExecutionContext): string | undefined => {
  return ctx.switchToHttp().getRequest<KeyedRequest>().operationId;
});
