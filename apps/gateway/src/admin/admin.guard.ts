import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { ADMIN_TOKEN } from '../gateway.tokens';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(ADMIN_TOKEN) token: string) {
    this.expected = digest(token);
  }

  canActivate(ctx: ExecutionContext): boolean {
    const header = ctx.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1].trim()), this.expected)) {
      throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
    }
    return true;
  }
}
