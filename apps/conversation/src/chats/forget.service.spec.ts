import { uuidv7 } from '@askdata/common';
import { DataSource } from 'typeorm';
import { embeddedDatabase, EmbeddedDatabase } from '../../../../test/support/embedded-database';
import { conversationDatabase } from '../conversation.database';
import { ForgetService } from './forget.service';

describe("a tenant's conversations forgotten (embedded PostgreSQL)", () => {
  let db: EmbeddedDatabase;
  let ds: DataSource;
  const project = uuidv7();
  const scope = { projectId: project, tenancy: 'multi' as const };

  beforeAll(async () => {
    db = await embeddedDatabase(conversationDatabase);
    ds = db.ds;
  }, 180000);
  afterAll(() => db.stop());

  async function user(externalId: string): Promise<string> {
    const id = uuidv7();
    await ds.query(`INSERT INTO conversation.users (id, project_id, external_id, created_at) VALUES ($1, $2, $3, now())`, [id, project, externalId]);
    return id;
  }

  async function chat(tenant: number, userId: string): Promise<string> {
    const id = uuidv7();
    await ds.query(`INSERT INTO conversation.chats (id, project_id, type, name, tenant, user_id, created_at) VALUES ($1, $2, 'chat', 'q', $3, $4, now())`, [
      id,
      project,
      tenant,
      userId,
    ]);
    for (const role of ['user', 'assistant']) {
      await ds.query(`INSERT INTO conversation.messages (id, chat_id, project_id, role, text, text_html, user_id, created_at) VALUES ($1, $2, $3, $4, 'q', 'q', $5, now())`, [
        uuidv7(),
        id,
        project,
        role,
        userId,
      ]);
    }
    return id;
  }

  const count = async (sql: string) => (await ds.query<Array<{ n: number }>>(sql, [project]))[0].n;

  it('deletes at most `limit` chats a call, each call in its own transaction, until none is left', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const other = await user('carol');
    for (let i = 0; i < 3; i++) await chat(1, alice);
    await chat(1, bob);
    await chat(2, other);
    const forget = new ForgetService(ds);

    expect(await forget.forgetTenant({ scope, tenant: 1, limit: 3 })).toEqual({ chats: 3 });
    // Alice had three chats, the first three: she goes with them; Bob still has one.
    expect(await count(`SELECT count(*)::int AS n FROM conversation.chats WHERE project_id = $1 AND tenant = 1`)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM conversation.users WHERE project_id = $1`)).toBe(2);
    expect(await forget.forgetTenant({ scope, tenant: 1, limit: 3 })).toEqual({ chats: 1 });
    expect(await forget.forgetTenant({ scope, tenant: 1, limit: 3 })).toEqual({ chats: 0 });

    expect(await count(`SELECT count(*)::int AS n FROM conversation.chats WHERE project_id = $1`)).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM conversation.messages WHERE project_id = $1`)).toBe(2);
    const users = await ds.query<Array<{ external_id: string }>>('SELECT external_id FROM conversation.users WHERE project_id = $1', [project]);
    expect(users.map((u) => u.external_id)).toEqual(['carol']);
  });
});
