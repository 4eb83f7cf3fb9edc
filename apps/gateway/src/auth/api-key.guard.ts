import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import type { Request, Response } from 'express';
import { Caller } from './caller';
import { ProjectsService } from '../projects/projects.service';
import { AuthFailures } from './auth-failures';
import { RateLimiter } from './rate-limiter';

type AuthedRequest = Request & { caller?: Caller };

/** `Api-Key` selects the project (under the failed-authentication limits); then the key's rate limit applies. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly projects: ProjectsService,
    private readonly limiter: RateLimiter,
    private readonly failures: AuthFailures,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const header = req.headers['api-key'];
    const key = typeof header === 'string' ? header.trim() : '';
    if (!key) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
    const caller = await this.failures.authenticate('api_key', req, res, key, () => this.projects.resolveKey(key));
    const rate = this.limiter.take(caller.keyId);
    if (rate) {
      res.setHeader('X-RateLimit-Limit', String(rate.limit));
      res.setHeader('X-RateLimit-Remaining', String(rate.remaining));
      if (!rate.allowed) {
        res.setHeader('Retry-After', String(rate.retryAfterSeconds));
        throw new ServiceError(ErrorCode.RateLimited, 'Too many requests. Retry after the time given in Retry-After.');
      }
    }
    req.caller = caller;
    return true;
  }
}

/** The caller resolved by {@link ApiKeyGuard}. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const caller = ctx.switchToHttp().getRequest<AuthedRequest>().caller;
  if (!caller) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  return caller;
});
