import { Injectable } from '@nestjs/common';
import { BusRequest, BusResponse, Subjects } from '@askdata/contracts';
import { queryRows } from '@askdata/common';
import { DataSource } from 'typeorm';

type S = typeof Subjects.conversation;

/** What deletes do to conversations: chats keep their text, and say which of their sources were deleted. */
@Injectable()
export class ForgetService {
  constructor(private readonly ds: DataSource) {}

  /**
   * Marks every source citing one of these items `deleted`, its url and snippet dropped (the item's content leaves
   * the chats too; the answer's text stays as it was). Messages are found through the GIN index on `sources`, one
   * item at a time. Idempotent.
   */
  async forgetSources(req: BusRequest<S['sourcesForget']>): Promise<BusResponse<S['sourcesForget']>> {
    if (req.itemIds.length === 0) return { messages: 0 };
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `UPDATE conversation.messages m
          SET sources = (SELECT jsonb_agg(CASE WHEN e.s->>'id' = ANY($2::text[])
                                               THEN e.s || '{"url": null, "snippet": "", "deleted": true}'::jsonb
                                               ELSE e.s END ORDER BY e.k)
                           FROM jsonb_array_elements(m.sources) WITH ORDINALITY AS e(s, k))
        WHERE m.project_id = $1
          AND m.id IN (SELECT hit.id FROM unnest($2::text[]) AS x(id)
                       CROSS JOIN LATERAL (SELECT c.id FROM conversation.messages c
                                            WHERE c.project_id = $1 AND c.sources @> jsonb_build_array(jsonb_build_object('id', x.id))) hit)
       RETURNING m.id`,
      [req.scope.projectId, req.itemIds],
    );
    return { messages: rows.length };
  }

  /**
   * Deletes the tenant's first `limit` chats with their messages, and the users who have no chat left, in one
   * transaction. Idempotent; the caller repeats it until fewer than `limit` are deleted.
   */
  async forgetTenant(req: BusRequest<S['tenantForget']>): Promise<BusResponse<S['tenantForget']>> {
    const project = req.scope.projectId;
    return this.ds.transaction(async (tx) => {
      const chats = await queryRows<{ id: string; user_id: string | null }>(
        tx,
        `SELECT id, user_id FROM conversation.chats WHERE project_id = $1 AND tenant = $2 ORDER BY id LIMIT $3 FOR UPDATE`,
        [project, req.tenant, Math.min(Math.max(1, Math.floor(req.limit)), 1000)],
      );
      if (chats.length === 0) return { chats: 0 };
      const ids = chats.map((c) => c.id);
      const users = [...new Set(chats.map((c) => c.user_id).filter((u): u is string => u !== null))];
      await tx.query('DELETE FROM conversation.messages WHERE chat_id = ANY($1::uuid[])', [ids]);
      await tx.query('DELETE FROM conversation.chats WHERE id = ANY($1::uuid[])', [ids]);
      await tx.query(
        `DELETE FROM conversation.users u WHERE u.id = ANY($1::uuid[]) AND u.project_id = $2
            AND NOT EXISTS (SELECT 1 FROM conversation.chats c WHERE c.user_id = u.id)
            AND NOT EXISTS (SELECT 1 FROM conversation.messages m WHERE m.user_id = u.id)`,
        [users, project],
      );
      return { chats: ids.length };
    });
  }
}
