import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AdminActor, credentialFingerprint } from '../audit/audit.service';
import { AuthFailures } from '../auth/auth-failures';
import { ADMIN_TOKEN } from '../gateway.tokens';

type AdminRequest = Request & { admin?: AdminActor };

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time, under the failed-authentication limits. */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(
    @Inject(ADMIN_TOKEN) token: string,
    private readonly failures: AuthFailures,
  ) {
    this.expected = digest(token);
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AdminRequest>();
    req.admin = await this.verify(req, ctx.switchToHttp().getResponse<Response>());
    return true;
  }

  /** The admin credential of the request (401 without a valid one). */
  async verify(req: Request, res: Response): Promise<AdminActor> {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const presented = match ? match[1].trim() : '';
    if (!presented) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
    await this.failures.authenticate('admin_token', req, res, presented, () => (timingSafeEqual(digest(presented), this.expected) ? true : null));
    return { actor: credentialFingerprint(presented), address: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
  }
}

/** Who is making the admin request: set by {@link AdminGuard}. */
export const CurrentAdmin = createParamDecorator((_: unknown, ctx: ExecutionContext): AdminActor => {
  const admin = ctx.switchToHttp().getRequest<AdminRequest>().admin;
  if (!admin) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  return admin;
});
