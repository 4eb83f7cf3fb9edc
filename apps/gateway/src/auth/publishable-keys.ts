import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import type { Request, Response } from 'express';
import { SessionClaims, SessionTokens } from '../sessions/session-tokens';
import { Caller } from './caller';
import { allowOrigin, SESSION_HEADER } from './cors';
import { isOrigin, PUBLISHABLE_ROUTE } from './key-kinds';

/**
 * What a publishable key must satisfy beyond being known: an `Origin` it names (its answers then let that origin
 * read them), a route marked for it (`ForPublishableKeys`), and in a multi-tenant project a valid session token
 * (`Askdata-Session`) of its own project. A secret key takes no session token.
 */
@Injectable()
export class PublishableKeys {
  constructor(
    @Inject(SessionTokens) private readonly tokens: SessionTokens,
    private readonly reflector: Reflector,
  ) {}

  /** 403 unless the request comes from one of the key's origins; then its answers may be read there (the 403 too). */
  checkOrigin(req: Request, res: Response, caller: Caller): void {
    const origin = req.headers.origin;
    if (origin === undefined) throw ServiceError.forbidden('A publishable key is taken only from a web page of an origin it allows: the request has no Origin.');
    // The refusal itself is readable by the page, so that a widget there can say why it cannot answer.
    if (isOrigin(origin)) allowOrigin(res, origin);
    if (!caller.origins.includes(origin)) throw ServiceError.forbidden('A publishable key is taken only from an origin it allows, and this Origin is not one of them.');
  }

  /** The session the request runs in (null without one), once the route is one a publishable key may use. */
  admit(ctx: ExecutionContext, req: Request, caller: Caller): SessionClaims | null {
    if (!this.reflector.get<boolean | undefined>(PUBLISHABLE_ROUTE, ctx.getHandler())) {
      throw ServiceError.forbidden('A publishable key may only ask questions and read, continue and give feedback on its own chats: use a secret key, from a server, here.');
    }
    const token = req.headers[SESSION_HEADER];
    if (token === undefined) {
      if (caller.scope.tenancy === 'multi') {
        throw new ServiceError(ErrorCode.Unauthenticated, 'A publishable key needs a session token (Askdata-Session) in a multi-tenant project.');
      }
      return null;
    }
    const claims = typeof token === 'string' ? this.tokens.verify(token.trim(), caller.scope.projectId) : null;
    // A token made while the project was single-tenant names no tenant: it cannot stand for one now.
    if (!claims || (caller.scope.tenancy === 'multi' && claims.tenant === null)) throw new ServiceError(ErrorCode.Unauthenticated, 'The session token is invalid or has expired.');
    return claims;
  }

  /** A secret key acts for the whole project: a session token with it would restrict nothing, so it is refused. */
  refuseSession(req: Request): void {
    if (req.headers[SESSION_HEADER] !== undefined) {
      throw ServiceError.invalidField('Askdata-Session', 'The Askdata-Session header is taken with publishable keys only.');
    }
  }
}
