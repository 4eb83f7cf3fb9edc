import { Injectable } from '@nestjs/common';
import { isUuid, QuestionDto } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { DataSource } from 'typeorm';
import { Caller } from '../auth/caller';
import { SessionChatEntity } from './session-chat.entity';

/** Whose a publishable key's chat is: the session's user, else the session itself, else nobody in particular. */
export function subjectOf(caller: Caller): string {
  const s = caller.session;
  if (!s) return 'none';
  return s.identifier ? `user:${s.identifier.id}` : `session:${s.jti}`;
}

/**
 * A question asked with a publishable key in a session: the tenant, the user and the collections are the session's.
 * The body may repeat them, and may narrow the collections to some of the session's, but naming another tenant,
 * another user or another collection is 403. Without a session (single-tenant projects) the body stands as sent.
 */
export function bindToSession(caller: Caller, dto: QuestionDto): QuestionDto {
  const s = caller.session;
  if (!s) return dto;
  if (s.tenant !== null && dto.tenant !== undefined && dto.tenant !== null && dto.tenant !== s.tenant) {
    throw ServiceError.forbidden("The tenant field must be the session's tenant, or absent.");
  }
  const given = dto.identifier;
  if (
    given &&
    (!s.identifier || given.id !== s.identifier.id || (given.name ?? s.identifier.name) !== s.identifier.name || (given.email ?? s.identifier.email) !== s.identifier.email)
  ) {
    throw ServiceError.forbidden("The identifier field must be the session's user, or absent.");
  }
  // Elements that are not strings are left to the question's validation (422).
  const allowed = s.collections;
  if (allowed && dto.collections?.some((c: unknown) => typeof c === 'string' && !allowed.includes(c))) {
    throw ServiceError.forbidden("The collections field may only name collections of the session's.");
  }
  const identifier = s.identifier ? { id: s.identifier.id, name: s.identifier.name ?? undefined, email: s.identifier.email ?? undefined } : undefined;
  return { ...dto, tenant: s.tenant ?? dto.tenant, identifier, collections: dto.collections ?? s.collections ?? undefined };
}

/** Chats asked through publishable keys, and who may come back to them (SessionChatEntity). */
@Injectable()
export class SessionChats {
  constructor(private readonly ds: DataSource) {}

  /** Records the chat a publishable key's question made as its session's (again on a retry: nothing changes). */
  async record(caller: Caller, chatId: string): Promise<void> {
    if (caller.kind !== 'publishable') return;
    await this.ds
      .createQueryBuilder()
      .insert()
      .into(SessionChatEntity)
      .values({ chatId, projectId: caller.scope.projectId, tenant: caller.session?.tenant ?? null, subject: subjectOf(caller), createdAt: new Date() })
      .orIgnore()
      .execute();
  }

  /** For a publishable key, 404 unless the chat was asked in a session of the same project, tenant and subject. */
  async mustOwn(caller: Caller, chatId: string): Promise<void> {
    if (caller.kind !== 'publishable') return;
    const row = isUuid(chatId) ? await this.ds.getRepository(SessionChatEntity).findOneBy({ chatId }) : null;
    const own = row !== null && row.projectId === caller.scope.projectId && row.tenant === (caller.session?.tenant ?? null) && row.subject === subjectOf(caller);
    if (!own) throw ServiceError.notFound('Chat');
  }
}
