import { Inject, Injectable } from '@nestjs/common';
import {
  ChatType,
  ChatView,
  FinishReason,
  Identifier,
  BusRequest as Req,
  MessageView,
  QuestionRequest,
  Scope,
  SourceView,
  StreamTicket,
  Subjects,
  tenantMissing,
  tenantRequired,
} from '@askdata/contracts';
import { assertTimeLeft, BusClient, isUniqueViolation, ServiceError, StreamSender, uuidv7 } from '@askdata/common';
import { createHash } from 'node:crypto';
import { DataSource, MoreThan } from 'typeorm';
import { CONVERSATION_CONFIG, ConversationConfig, WRITE_RESERVE_MS } from '../conversation.config';
import { ChatTurn } from '../answers/answer-generator';
import { historyWithin } from '../answers/bounds';
import { renderMarkdown } from '../answers/markdown';
import { Answer, ChatAnswers, questionLanguage } from './chat-answers';
import { ChatEntity, MessageEntity, UserEntity } from './chat.entity';
import { ChatsService } from './chats.service';
import { chatName, toChatView, toMessageView } from './views';

type S = typeof Subjects.conversation;

interface Asked {
  chat: ChatEntity;
  question: MessageEntity;
  answer: MessageEntity;
  user: UserEntity | null;
}

/**
 * Questions and follow-ups: (rewrite with history) -> retrieve within the tenant, collections and filter ->
 * generate -> store question and answer together. Nothing is stored unless the whole answer exists, so a
 * failing dependency leaves no half-written chat; and nothing is committed once the caller's deadline is too
 * close (the gateway has answered 503, or is about to), so a question answered 503 leaves nothing behind.
 * Retrieval and generation are in chat-answers.ts; reading stored chats in chats.service.ts.
 */
@Injectable()
export class QuestionsService {
  constructor(
    private readonly ds: DataSource,
    private readonly bus: BusClient,
    private readonly answers: ChatAnswers,
    private readonly chats: ChatsService,
    @Inject(CONVERSATION_CONFIG) private readonly config: ConversationConfig,
  ) {}

  query(req: QuestionRequest): Promise<MessageView> {
    return this.streamed(req.stream, async (stream) => toMessageView((await this.ask(req, 'query', stream)).answer, null));
  }

  create(req: QuestionRequest): Promise<ChatView> {
    return this.streamed(req.stream, async (stream) => {
      const asked = await this.ask(req, 'chat', stream);
      const users = new Map(asked.user ? [[asked.user.id, asked.user]] : []);
      return toChatView(asked.chat, [asked.question, asked.answer], users);
    });
  }

  followUp(req: Req<S['messagesCreate']>): Promise<MessageView> {
    return this.streamed(req.stream, (stream) => this.askFollowUp(req, stream));
  }

  /**
   * Runs a question, streaming its answer on the ticket's channel when there is one: `start`, the text as it is
   * written, `sources`, then `done` with the stored resource (what the reply carries too).
   */
  private async streamed<T>(ticket: StreamTicket | undefined, run: (stream: StreamSender | undefined) => Promise<T>): Promise<T> {
    if (!ticket) return run(undefined);
    const stream = await StreamSender.open(this.bus, ticket);
    try {
      const view = await run(stream);
      await stream.send({ event: 'done', data: view });
      return view;
    } finally {
      stream.close();
    }
  }

  private async askFollowUp(req: Req<S['messagesCreate']>, stream: StreamSender | undefined): Promise<MessageView> {
    const chat = await this.chats.find(req.scope, req.chatId);
    if (chat.type === 'query') throw ServiceError.conflict('This chat belongs to a one-off query and takes no follow-up questions.');
    const asked = req.id ? await this.replyTo(chat, req.id) : null;
    if (asked) return asked;
    const questionId = req.id ?? uuidv7();
    const answerId = uuidv7();
    await stream?.send({ event: 'start', data: { chat: chat.id, message: answerId } });
    const history = await this.ds.getRepository(MessageEntity).find({ where: { chatId: chat.id }, order: { id: 'ASC' } });
    const turns = historyWithin(
      history.map((m): ChatTurn => ({ role: m.role, text: m.text })),
      this.config.HISTORY_TOKEN_BUDGET,
    );
    const given = req.language ?? null;
    const chunks = await this.answers.followUpChunks(req.scope, req.text, turns, chat, given);
    const answer = await this.answers.answer(req.scope, req.text, turns, chunks, req.instructions, await questionLanguage(req.text, given, chunks), stream);
    const now = Date.now();
    // The follow-up is the chat's user's too: its message carries the identifier the first question carries.
    const identifier = history.find((m) => m.role === 'user')?.identifier ?? null;
    const question = this.newMessage(chat, 'user', req.text, [], chat.userId, now, identifier, null, questionId);
    const reply = this.newMessage(chat, 'assistant', answer.text, answer.sources, null, now + 1, null, answer.finish, answerId);
    const sql = new Statement();
    const rows = [question, reply].map((m) => messageRow(sql, m)).join(', ');
    try {
      await this.storeAnswer(`INSERT INTO conversation.messages (${MESSAGE_COLUMNS}) VALUES ${rows}`, sql.params, stream);
    } catch (e) {
      const stored = req.id && isUniqueViolation(e) ? await this.replyTo(chat, req.id) : null;
      if (stored) return stored;
      throw e;
    }
    return toMessageView(reply, null);
  }

  /** The answer stored to the question of id `questionId` in the chat (asked before, its answer lost), or null. */
  private async replyTo(chat: ChatEntity, questionId: string): Promise<MessageView | null> {
    const messages = this.ds.getRepository(MessageEntity);
    const question = await messages.findOneBy({ id: questionId });
    if (!question) return null;
    if (question.chatId !== chat.id || question.role !== 'user') throw ServiceError.conflict('The message id is taken.');
    const [reply] = await messages.find({ where: { chatId: chat.id, role: 'assistant', id: MoreThan(questionId) }, order: { id: 'ASC' }, take: 1 });
    if (!reply) return null;
    return toMessageView(reply, null);
  }

  /** The chat stored under `id` with its first question and answer (asked before, the answer lost), or null. */
  private async askedBefore(scope: Scope, id: string, type: ChatType): Promise<Asked | null> {
    const chat = await this.ds.getRepository(ChatEntity).findOneBy({ id });
    if (!chat) return null;
    if (chat.projectId !== scope.projectId || chat.type !== type) throw ServiceError.conflict('The chat id is taken.');
    const [question, answer] = await this.ds.getRepository(MessageEntity).find({ where: { chatId: id }, order: { id: 'ASC' }, take: 2 });
    const user = chat.userId ? await this.ds.getRepository(UserEntity).findOneBy({ id: chat.userId }) : null;
    return { chat, question, answer, user };
  }

  private async ask(req: QuestionRequest, type: ChatType, stream?: StreamSender): Promise<Asked> {
    if (tenantMissing(req.scope, req.tenant)) {
      throw ServiceError.invalidField('tenant', tenantRequired());
    }
    const before = req.id ? await this.askedBefore(req.scope, req.id, type) : null;
    if (before) return before;
    const ids = { chat: req.id ?? uuidv7(), question: uuidv7(), answer: uuidv7() };
    const given = req.language ?? null;
    // Retrieval checks the body's collections and filter: a 422 of theirs is an ordinary answer, so the stream
    // starts only after it.
    const chunks = await this.answers.retrieve(req.scope, req.text, req.collections, req.tenant, req.filter, given);
    await stream?.send({ event: 'start', data: { chat: ids.chat, message: ids.answer } });
    const answer = await this.answers.answer(req.scope, req.text, [], chunks, req.instructions, await questionLanguage(req.text, given, chunks), stream);
    const now = Date.now();
    try {
      return await this.store(req, type, answer, now, ids, stream);
    } catch (e) {
      const stored = req.id && isUniqueViolation(e) ? await this.askedBefore(req.scope, req.id, type) : null;
      if (stored) return stored;
      throw e;
    }
  }

  /**
   * Stores the chat with its question and answer, and the asker as a user (created, or its name, email and avatar
   * updated), in one statement: one round trip, committed with it.
   */
  private async store(
    req: QuestionRequest,
    type: ChatType,
    answer: Answer,
    now: number,
    ids: { chat: string; question: string; answer: string },
    stream?: StreamSender,
  ): Promise<Asked> {
    const chat: ChatEntity = {
      id: ids.chat,
      projectId: req.scope.projectId,
      type,
      name: chatName(req.text),
      tenant: req.tenant,
      userId: null,
      feedback: null,
      collections: req.collections,
      filter: req.filter,
      createdAt: new Date(now),
    };
    const question = this.newMessage(chat, 'user', req.text, [], null, now, req.identifier?.id ?? null, null, ids.question);
    const reply = this.newMessage(chat, 'assistant', answer.text, answer.sources, null, now + 1, null, answer.finish, ids.answer);
    const sql = new Statement();
    const upsert = req.identifier ? userUpsert(sql, req.scope, req.identifier) : null;
    // The user's id is the upserted row's: an identifier seen before keeps the user it has.
    const userId = upsert ? '(SELECT id FROM u)' : 'NULL';
    const steps = [
      ...(upsert ? [`u AS (${upsert})`] : []),
      `c AS (INSERT INTO conversation.chats (id, project_id, type, name, tenant, user_id, feedback, collections, filter, created_at)
             VALUES (${sql.p(chat.id)}, ${sql.p(chat.projectId)}, ${sql.p(type)}, ${sql.p(chat.name)}, ${sql.p(chat.tenant)}, ${userId}, NULL,
                     ${sql.p(jsonb(chat.collections))}, ${sql.p(jsonb(chat.filter))}, ${sql.p(chat.createdAt)}))`,
      `m AS (INSERT INTO conversation.messages (${MESSAGE_COLUMNS}) VALUES ${messageRow(sql, question, userId)}, ${messageRow(sql, reply)})`,
    ];
    // It gives the user's row, when there is a user.
    const [user = null] = await this.storeAnswer<UserEntity>(`WITH ${steps.join(',\n')}\nSELECT ${upsert ? `${USER_COLUMNS} FROM u` : 'NULL WHERE false'}`, sql.params, stream);
    chat.userId = user?.id ?? null;
    question.userId = chat.userId;
    return { chat, question, answer: reply, user };
  }

  /**
   * Runs the one statement that stores an answer (committed with it) once it has a connection: the deadline is checked
   * then, last, so that a caller answered (or gone) while the statement waited for a connection finds nothing stored.
   */
  private async storeAnswer<T>(statement: string, params: unknown[], stream?: StreamSender): Promise<T[]> {
    const runner = this.ds.createQueryRunner();
    try {
      await runner.connect();
      assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
      stream?.throwIfStopped();
      return (await runner.query(statement, params)) as T[];
    } finally {
      await runner.release();
    }
  }

  private newMessage(
    chat: ChatEntity,
    role: 'user' | 'assistant',
    text: string,
    sources: SourceView[],
    userId: string | null,
    at: number,
    identifier: string | null = null,
    finishReason: FinishReason | null = null,
    id: string = uuidv7(),
  ): MessageEntity {
    return {
      id,
      chatId: chat.id,
      projectId: chat.projectId,
      role,
      text,
      textHtml: renderMarkdown(text),
      identifier: role === 'user' ? identifier : null,
      userId,
      feedback: null,
      sources,
      finishReason: role === 'assistant' ? (finishReason ?? 'complete') : null,
      createdAt: new Date(at),
    };
  }
}

/** The parameters of a statement being written: `p(value)` adds one and gives its placeholder. */
class Statement {
  readonly params: unknown[] = [];

  p(value: unknown): string {
    return `$${this.params.push(value)}`;
  }
}

const MESSAGE_COLUMNS = 'id, chat_id, project_id, role, text, text_html, identifier, user_id, feedback, sources, finish_reason, created_at';
const USER_COLUMNS = 'id, project_id AS "projectId", external_id AS "externalId", name, email, avatar, created_at AS "createdAt"';

/** A jsonb column's value as the entities store it: JSON text, or NULL. */
function jsonb(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** The message's row for `INSERT ... (MESSAGE_COLUMNS) VALUES`; its user id the SQL `userId` when given. */
function messageRow(sql: Statement, m: MessageEntity, userId?: string): string {
  const p = (v: unknown) => sql.p(v);
  const values = [
    p(m.id),
    p(m.chatId),
    p(m.projectId),
    p(m.role),
    p(m.text),
    p(m.textHtml),
    p(m.identifier),
    userId ?? p(m.userId),
    p(m.feedback),
    p(jsonb(m.sources)),
    p(m.finishReason),
    p(m.createdAt),
  ];
  return `(${values.join(', ')})`;
}

/** The user of `identifier` inserted, or its name, email and avatar updated where given; returning its row. */
function userUpsert(sql: Statement, scope: Scope, identifier: Identifier): string {
  const email = identifier.email?.trim() || null;
  const avatar = email ? `https://www.gravatar.com/avatar/${createHash('sha256').update(email.toLowerCase()).digest('hex')}?d=identicon` : null;
  return `INSERT INTO conversation.users (id, project_id, external_id, name, email, avatar, created_at)
          VALUES (${sql.p(uuidv7())}, ${sql.p(scope.projectId)}, ${sql.p(identifier.id)}, ${sql.p(identifier.name ?? null)}, ${sql.p(email)}, ${sql.p(avatar)}, now())
          ON CONFLICT (project_id, external_id) DO UPDATE SET
            name = COALESCE(EXCLUDED.name, conversation.users.name),
            email = COALESCE(EXCLUDED.email, conversation.users.email),
            avatar = COALESCE(EXCLUDED.avatar, conversation.users.avatar)
          RETURNING id, project_id, external_id, name, email, avatar, created_at`;
}
