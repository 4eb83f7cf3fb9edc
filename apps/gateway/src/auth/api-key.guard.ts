import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import type { Request, Response } from 'express';
import { Caller } from './caller';
import { ProjectsService } from '../projects/projects.service';
import { AuthFailures } from './auth-failures';
import { clientAddress } from './client-address';
import { KeyUsage } from './key-usage';
import { PublishableKeys } from './publishable-keys';
import { RateDecision, RateLimiter } from './rate-limiter';

type AuthedRequest = Request & { caller?: Caller };

/**
 * `Api-Key` selects the project (under the failed-authentication limits); a publishable key must come from one of
 * its origins; then the key's rate limit applies (and, for a publishable key, the limit of its client address);
 * a publishable key is then held to its routes and its session (PublishableKeys).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly projects: ProjectsService,
    private readonly limiter: RateLimiter,
    private readonly failures: AuthFailures,
    private readonly publishable: PublishableKeys,
    private readonly usage: KeyUsage,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const header = req.headers['api-key'];
    const key = typeof header === 'string' ? header.trim() : '';
    if (!key) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
    const caller = await this.failures.authenticate('api_key', req, res, key, () => this.projects.resolveKey(key));
    this.usage.seen(caller.keyId);
    if (caller.kind === 'publishable') {
      this.publishable.checkOrigin(req, res, caller);
      this.limit(res, [this.limiter.take(caller.keyId), this.limiter.takeForAddress(caller.keyId, clientAddress(req))]);
      req.caller = { ...caller, session: this.publishable.admit(ctx, req, caller) };
    } else {
      this.limit(res, [this.limiter.take(caller.keyId)]);
      this.publishable.refuseSession(req);
      req.caller = caller;
    }
    return true;
  }

  /** The headers of the tightest limit; 429 when any refuses. */
  private limit(res: Response, decisions: Array<RateDecision | null>): void {
    const taken = decisions.filter((d): d is RateDecision => d !== null);
    if (!taken.length) return;
    const rate = taken.find((d) => !d.allowed) ?? taken.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    res.setHeader('X-RateLimit-Limit', String(rate.limit));
    res.setHeader('X-RateLimit-Remaining', String(rate.remaining));
    if (!rate.allowed) {
      res.setHeader('Retry-After', String(rate.retryAfterSeconds));
      throw new ServiceError(ErrorCode.RateLimited, 'Too many requests. Retry after the time given in Retry-After.');
    }
  }
}

/** The caller resolved by {@link ApiKeyGuard}. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const caller = ctx.switchToHttp().getRequest<AuthedRequest>().caller;
  if (!caller) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  return caller;
});
