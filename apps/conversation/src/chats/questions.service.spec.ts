import { BusClient, loadConfig, runWithRequestContext, uuidv7 } from '@askdata/common';
import { ErrorCode, QuestionRequest, RetrievedChunk, Scope } from '@askdata/contracts';
import { DataSource } from 'typeorm';
import { embeddedDatabase, EmbeddedDatabase } from '../../../../test/support/embedded-database';
import { conversationSettings, WRITE_RESERVE_MS } from '../conversation.config';
import { conversationDatabase } from '../conversation.database';
import { Answer, ChatAnswers } from './chat-answers';
import { ChatEntity } from './chat.entity';
import { ChatsService } from './chats.service';
import { QuestionsService } from './questions.service';

/** Answers every question with "Answer n", citing one source; `meanwhile` runs once, before the answer is given. */
class NumberedAnswers implements Pick<ChatAnswers, 'retrieve' | 'followUpChunks' | 'answer'> {
  count = 0;
  meanwhile: (() => Promise<unknown>) | null = null;

  retrieve(): Promise<RetrievedChunk[]> {
    return Promise.resolve([]);
  }

  followUpChunks(): Promise<RetrievedChunk[]> {
    return Promise.resolve([]);
  }

  async answer(): Promise<Answer> {
    const text = `Answer ${++this.count} [1]`;
    const run = this.meanwhile;
    this.meanwhile = null;
    await run?.();
    return { text, sources: [{ index: 1, item_id: uuidv7(), id: 'hours', collection: 'faq', url: null, snippet: 'Open at nine.' }], finish: 'complete' };
  }
}

describe('questions and their answers stored (embedded PostgreSQL)', () => {
  let db: EmbeddedDatabase;
  let ds: DataSource;
  let answers: NumberedAnswers;
  let chats: ChatsService;
  let questions: QuestionsService;
  const scope: Scope = { projectId: uuidv7(), tenancy: 'single' };
  const ask = (more: Partial<QuestionRequest> = {}): QuestionRequest => ({
    scope,
    text: 'When does the shop open?',
    collections: null,
    tenant: null,
    identifier: null,
    filter: null,
    instructions: null,
    language: 'en',
    ...more,
  });
  const followUp = (chatId: string, id?: string) => ({ scope, chatId, text: 'And on Sundays?', instructions: null, language: 'en', id });
  /** With less than the time kept for storing left before the caller's deadline. */
  const late = <T>(run: () => Promise<T>) => runWithRequestContext({ requestId: 'late', deadline: Date.now() + WRITE_RESERVE_MS / 2 }, run);
  const storedChats = async () =>
    (await ds.query<Array<{ id: string }>>('SELECT id FROM conversation.chats WHERE project_id = $1 ORDER BY id', [scope.projectId])).map((r) => r.id);

  beforeAll(async () => {
    db = await embeddedDatabase(conversationDatabase);
    ds = db.ds;
    answers = new NumberedAnswers();
    chats = new ChatsService(ds);
    questions = new QuestionsService(ds, {} as BusClient, answers as unknown as ChatAnswers, chats, loadConfig(conversationSettings, {}));
  }, 180000);
  afterAll(() => db.stop());

  it('stores the chat as answered: the question, the answer with its sources, the scope and the user', async () => {
    const chat = await questions.create(ask({ collections: ['faq'], filter: { kind: 'hours' }, identifier: { id: 'ann', name: 'Ann', email: 'ann@example.com' } }));
    expect(chat.user).toMatchObject({ id: 'ann', name: 'Ann', email: 'ann@example.com', avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\//) });
    expect(chat.messages.map((m) => [m.role, m.identifier, m.user?.id ?? null])).toEqual([
      ['user', 'ann', 'ann'],
      ['assistant', null, null],
    ]);
    expect(await chats.get(scope, chat.id)).toEqual(chat);
    // Follow-ups search within what the first question did.
    expect(await ds.getRepository(ChatEntity).findOneByOrFail({ id: chat.id })).toMatchObject({ collections: ['faq'], filter: { kind: 'hours' }, tenant: null });

    const reply = await questions.followUp(followUp(chat.id));
    const stored = await chats.get(scope, chat.id);
    expect(stored.messages.slice(2)).toEqual([expect.objectContaining({ role: 'user', text: 'And on Sundays?', identifier: 'ann', user: chat.user }), reply]);
  });

  it('keeps the user of an identifier seen before, taking the name it now gives and the email it gave', async () => {
    const first = await questions.create(ask({ identifier: { id: 'bob', name: 'Bob', email: 'bob@example.com' } }));
    const second = await questions.create(ask({ identifier: { id: 'bob', name: 'Robert' } }));
    expect(second.user).toEqual({ ...first.user, name: 'Robert' });
    expect(await chats.get(scope, first.id)).toMatchObject({ user: { name: 'Robert' } });
    const users = await ds.query<unknown[]>(`SELECT 1 FROM conversation.users WHERE project_id = $1 AND external_id = 'bob'`, [scope.projectId]);
    expect(users).toHaveLength(1);
    expect((await questions.query(ask())).user).toBeNull();
  });

  it('stores nothing, neither a question nor a follow-up, once too little time is left before the deadline', async () => {
    const before = await storedChats();
    await expect(late(() => questions.query(ask()))).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    await expect(late(() => questions.create(ask({ identifier: { id: 'carol' } })))).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(await storedChats()).toEqual(before);
    expect(await ds.query(`SELECT 1 FROM conversation.users WHERE project_id = $1 AND external_id = 'carol'`, [scope.projectId])).toEqual([]);

    const chat = await questions.create(ask());
    await expect(late(() => questions.followUp(followUp(chat.id)))).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(await chats.get(scope, chat.id)).toEqual(chat);
  });

  it('gives a question whose id was stored meanwhile (the same request, sent again) the answer stored, storing it once', async () => {
    const id = uuidv7();
    let meanwhile: unknown;
    answers.meanwhile = async () => (meanwhile = await questions.create(ask({ id })));
    expect(await questions.create(ask({ id }))).toEqual(meanwhile);
    expect(await ds.query(`SELECT 1 FROM conversation.chats WHERE id = $1`, [id])).toHaveLength(1);
    expect((await chats.get(scope, id)).messages).toHaveLength(2);

    const questionId = uuidv7();
    answers.meanwhile = async () => (meanwhile = await questions.followUp(followUp(id, questionId)));
    expect(await questions.followUp(followUp(id, questionId))).toEqual(meanwhile);
    expect((await chats.get(scope, id)).messages).toHaveLength(4);
  });
});
