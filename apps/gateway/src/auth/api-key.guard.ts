import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import type { Request, Response } from 'express';
import { Caller } from './caller';
import { AdminGuard } from '../admin/admin.guard';
import { AdminPort } from '../http/admin-port';
import { ProjectsService } from '../projects/projects.service';
import { AuthFailures } from './auth-failures';
import { clientAddress } from './client-address';
import { KeyUsage } from './key-usage';
import { PublishableKeys } from './publishable-keys';
import { RateDecision, RateLimiter } from './rate-limiter';

/** The project an operator acts in, with the admin token (the console). */
export const PROJECT_HEADER = 'askdata-project';

type AuthedRequest = Request & { caller?: Caller };

/**
 * `Api-Key` selects the project (under the failed-authentication limits); a publishable key must come from one of
 * its origins; then the key's rate limit applies (and, for a publishable key, the limit of its client address);
 * a publishable key is then held to its routes and its session (PublishableKeys). Without `Api-Key`, the admin token
 * and `Askdata-Project` act in that project (the console).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly projects: ProjectsService,
    private readonly limiter: RateLimiter,
    private readonly failures: AuthFailures,
    private readonly publishable: PublishableKeys,
    private readonly usage: KeyUsage,
    private readonly admin: AdminGuard,
    private readonly adminPort: AdminPort,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const header = req.headers['api-key'];
    const key = typeof header === 'string' ? header.trim() : '';
    if (!key && req.headers[PROJECT_HEADER] !== undefined) {
      req.caller = await this.operator(req, res);
      return true;
    }
    if (!key) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
    const caller = await this.failures.authenticate('api_key', req, res, key, () => this.projects.resolveKey(key));
    this.usage.seen(caller.keyId);
    if (caller.kind === 'publishable') {
      this.publishable.checkOrigin(req, res, caller);
      // An address over its own limit costs the key nothing: one visitor cannot use up the page's key for the others.
      const byAddress = this.limiter.takeForAddress(caller.keyId, clientAddress(req));
      this.limit(res, byAddress && !byAddress.allowed ? [byAddress] : [this.limiter.take(caller.keyId), byAddress]);
      req.caller = { ...caller, session: this.publishable.admit(ctx, req, caller) };
    } else {
      this.limit(res, [this.limiter.take(caller.keyId)]);
      this.publishable.refuseSession(req);
      req.caller = caller;
    }
    return true;
  }

  /**
   * The console: the admin token with `Askdata-Project: <id>` acts in that project as a secret key would, on the
   * port that serves the admin API only (in distributed mode the public port refuses the admin token here too).
   */
  private async operator(req: Request, res: Response): Promise<Caller> {
    if (!this.adminPort.servesAdmin(req)) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
    await this.admin.verify(req, res);
    const project = req.headers[PROJECT_HEADER];
    if (typeof project !== 'string') throw ServiceError.invalidField('Askdata-Project', 'The Askdata-Project header must be a project id.');
    this.publishable.refuseSession(req);
    return this.projects.operatorIn(project.trim());
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
