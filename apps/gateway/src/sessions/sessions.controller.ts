import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { CreateSessionDto, SessionBounds, SessionView, tenantMissing, tenantRequired } from '@askdata/contracts';
import { isoMicro, ServiceError } from '@askdata/common';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { Caller } from '../auth/caller';
import { ApiOperationDoc } from '../openapi/api-docs';
import { SessionTokens } from './session-tokens';

/** Extension: a server (secret key) opens a session for one of its users, whose browser then asks with a publishable key. */
@UseGuards(ApiKeyGuard)
@Controller('v1/sessions')
export class SessionsController {
  constructor(@Inject(SessionTokens) private readonly tokens: SessionTokens) {}

  @Post()
  @HttpCode(201)
  @ApiOperationDoc({
    tag: 'Sessions',
    summary: "Extension (secret keys): a signed session token binding a browser's questions to a tenant, a user and collections.",
    status: 201,
    data: SessionView,
    body: CreateSessionDto,
    errors: [400, 413, 422],
  })
  create(@CurrentCaller() caller: Caller, @Body() dto: CreateSessionDto): { data: SessionView } {
    if (tenantMissing(caller.scope, dto.tenant)) throw ServiceError.invalidField('tenant', tenantRequired());
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + (dto.ttl ?? SessionBounds.ttlDefault);
    const identifier = dto.identifier ? { id: dto.identifier.id, name: dto.identifier.name ?? null, email: dto.identifier.email ?? null } : null;
    const token = this.tokens.sign({ pid: caller.scope.projectId, tenant: dto.tenant ?? null, identifier, collections: dto.collections ?? null, iat, exp });
    return { data: { token, expires_at: isoMicro(new Date(exp * 1000)) } };
  }
}
