import { Inject, Injectable } from '@nestjs/common';
import {
  ChatType,
  ChatView,
  FinishReason,
  Identifier,
  BusRequest as Req,
  isUuid,
  MessageView,
  Paged,
  QuestionRequest,
  RetrievedChunk,
  Scope,
  SourceView,
  StreamTicket,
  Subjects,
  tenantMissing,
  tenantRequired,
} from '@askdata/contracts';
import {
  assertTimeLeft,
  BusClient,
  WebhookOutbox,
  detectLanguage,
  isUniqueViolation,
  itemTitle,
  QUESTION_LETTERS,
  ServiceError,
  StreamSender,
  usualLanguage,
  uuidv7,
} from '@askdata/common';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager, In, MoreThan } from 'typeorm';
import { CONVERSATION_CONFIG, ConversationConfig, WRITE_RESERVE_MS } from '../conversation.config';
import { ANSWER_GENERATOR, AnswerGenerator, AnswerRequest, ChatTurn, FieldDescriptions, GeneratedAnswer, notInData } from '../answers/answer-generator';
import { AnswerWriter } from '../answers/answer-writer';
import { boundAnswer, historyWithin } from '../answers/bounds';
import { readRecord } from '../answers/record-fields';
import { CitedAnswer, toSources } from '../answers/citations';
import { renderMarkdown } from '../answers/markdown';
import { ChatEntity, MessageEntity, UserEntity } from './chat.entity';
import { chatName, toChatView, toMessageView } from './views';

type S = typeof Subjects.conversation;

interface Asked {
  chat: ChatEntity;
  question: MessageEntity;
  answer: MessageEntity;
  user: UserEntity | null;
}

/** Results of several searches, alternating and without repeats, best first. */
export function interleave(lists: RetrievedChunk[][], limit: number): RetrievedChunk[] {
  const out: RetrievedChunk[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const list of lists) {
      const c = list[i];
      if (c && !seen.has(c.id) && out.length < limit) {
        seen.add(c.id);
        out.push(c);
      }
    }
  }
  return out;
}

/** An answer ready to store: its public text and sources, and how it ended. */
type Answer = CitedAnswer & { finish: FinishReason };

/**
 * The language a question is asked in: as given, else detected, else the one most of the chunks found for it are
 * in (the best one's on a tie), else English.
 */
export async function questionLanguage(text: string, given: string | null, chunks: RetrievedChunk[]): Promise<string> {
  return given ?? (await detectLanguage(text, QUESTION_LETTERS)) ?? usualLanguage(chunks.map((c) => c.language)) ?? 'en';
}

/**
 * Questions and follow-ups: (rewrite with history) -> retrieve within the tenant, collections and filter ->
 * generate -> store question and answer together. Nothing is stored unless the whole answer exists, so a
 * failing dependency leaves no half-written chat; and nothing is committed once the caller's deadline is too
 * close (the gateway has answered 503, or is about to), so a question answered 503 leaves nothing behind.
 */
@Injectable()
export class ChatsService {
  constructor(
    private readonly ds: DataSource,
    private readonly bus: BusClient,
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
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
    const chat = await this.findChat(req.scope, req.chatId);
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
    const standalone = await this.generator.rewrite(req.text, turns);
    const filter = chat.filter as Record<string, unknown> | null;
    const given = req.language ?? null;
    const chunks =
      standalone === req.text
        ? await this.retrieve(req.scope, req.text, chat.collections, chat.tenant, filter, given)
        : interleave(
            await Promise.all([
              this.retrieve(req.scope, standalone, chat.collections, chat.tenant, filter, given),
              this.retrieve(req.scope, req.text, chat.collections, chat.tenant, filter, given),
            ]),
            this.config.ANSWER_CONTEXT_ITEMS,
          );
    const answer = await this.answer(req.scope, req.text, turns, chunks, req.instructions, await questionLanguage(req.text, given, chunks), stream);
    const now = Date.now();
    // The follow-up is the chat's user's too: its message carries the identifier the first question carries.
    const identifier = history.find((m) => m.role === 'user')?.identifier ?? null;
    const question = this.newMessage(chat, 'user', req.text, [], chat.userId, now, identifier, null, questionId);
    const reply = this.newMessage(chat, 'assistant', answer.text, answer.sources, null, now + 1, null, answer.finish, answerId);
    try {
      await this.ds.transaction(async (tx) => {
        await tx.insert(MessageEntity, [question, reply]);
        assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
        stream?.throwIfStopped();
      });
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

  async list(req: Req<S['chatsList']>): Promise<Paged<ChatView>> {
    const qb = this.ds.getRepository(ChatEntity).createQueryBuilder('c').where('c.project_id = :p', { p: req.scope.projectId });
    if (req.type !== 'all') qb.andWhere('c.type = :type', { type: req.type });
    if (req.tenant !== null) qb.andWhere('c.tenant = :tenant', { tenant: req.tenant });
    if (req.user !== null) {
      qb.innerJoin(UserEntity, 'u', 'u.id = c.user_id').andWhere('u.external_id = :user', { user: req.user });
    }
    const [chats, total] = await qb
      .orderBy('c.id', 'DESC')
      .skip((req.page - 1) * req.perPage)
      .take(req.perPage)
      .getManyAndCount();
    return { data: await this.withMessages(chats), total };
  }

  async get(scope: Scope, id: string): Promise<ChatView> {
    const [view] = await this.withMessages([await this.findChat(scope, id)]);
    return view;
  }

  async message(scope: Scope, chatId: string, id: string): Promise<MessageView> {
    const { message, user } = await this.findMessage(scope, chatId, id);
    return toMessageView(message, user);
  }

  /** Feedback is stored with its webhook event (`feedback.created`, carrying the chat as answered here). */
  async chatFeedback(scope: Scope, id: string, feedback: string): Promise<ChatView> {
    const chat = await this.findChat(scope, id);
    // The view is read before the transaction: standalone's one connection is the transaction's until it ends.
    const view: ChatView = { ...(await this.get(scope, id)), feedback };
    await this.ds.transaction(async (tx) => {
      await tx.getRepository(ChatEntity).update({ id: chat.id }, { feedback });
      await WebhookOutbox.write(tx, [{ projectId: scope.projectId, type: 'feedback.created', resource: 'chat', data: view }]);
    });
    return view;
  }

  async messageFeedback(scope: Scope, chatId: string, id: string, feedback: string): Promise<MessageView> {
    const { message, user } = await this.findMessage(scope, chatId, id);
    const view = toMessageView({ ...message, feedback }, user);
    await this.ds.transaction(async (tx) => {
      await tx.getRepository(MessageEntity).update({ id: message.id }, { feedback });
      await WebhookOutbox.write(tx, [{ projectId: scope.projectId, type: 'feedback.created', resource: 'message', data: view }]);
    });
    return view;
  }

  private async ask(req: QuestionRequest, type: ChatType, stream?: StreamSender): Promise<Asked> {
    if (tenantMissing(req.scope, req.tenant)) {
      throw ServiceError.invalidField('tenant', tenantRequired());
    }
    const before = req.id ? await this.askedBefore(req.scope, req.id, type) : null;
    if (before) return before;
    const ids = { chat: req.id ?? uuidv7(), question: uuidv7(), answer: uuidv7() };
    await stream?.send({ event: 'start', data: { chat: ids.chat, message: ids.answer } });
    const given = req.language ?? null;
    const chunks = await this.retrieve(req.scope, req.text, req.collections, req.tenant, req.filter, given);
    const answer = await this.answer(req.scope, req.text, [], chunks, req.instructions, await questionLanguage(req.text, given, chunks), stream);
    const now = Date.now();
    try {
      return await this.store(req, type, answer, now, ids, stream);
    } catch (e) {
      const stored = req.id && isUniqueViolation(e) ? await this.askedBefore(req.scope, req.id, type) : null;
      if (stored) return stored;
      throw e;
    }
  }

  /** Stores the chat with its question and answer, in one transaction. */
  private store(req: QuestionRequest, type: ChatType, answer: Answer, now: number, ids: { chat: string; question: string; answer: string }, stream?: StreamSender): Promise<Asked> {
    return this.ds.transaction(async (tx) => {
      const user = req.identifier ? await this.upsertUser(tx, req.scope, req.identifier) : null;
      const chat: ChatEntity = {
        id: ids.chat,
        projectId: req.scope.projectId,
        type,
        name: chatName(req.text),
        tenant: req.tenant,
        userId: user?.id ?? null,
        feedback: null,
        collections: req.collections,
        filter: req.filter,
        createdAt: new Date(now),
      };
      const question = this.newMessage(chat, 'user', req.text, [], user?.id ?? null, now, req.identifier?.id ?? null, null, ids.question);
      const reply = this.newMessage(chat, 'assistant', answer.text, answer.sources, null, now + 1, null, answer.finish, ids.answer);
      await tx.insert(ChatEntity, chat);
      await tx.insert(MessageEntity, [question, reply]);
      // Checked last, before the commit: a caller that has been answered (or has gone) meanwhile finds nothing stored.
      assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
      stream?.throwIfStopped();
      return { chat, question, answer: reply, user };
    });
  }

  /**
   * The generated answer in its public form, in the question's language, at most MAX_ANSWER_CHARS long: every `[n]` marker exists in
   * `sources`. Fails when the deadline leaves no time to store it.
   */
  private async answer(
    scope: Scope,
    question: string,
    history: ChatTurn[],
    chunks: RetrievedChunk[],
    instructions: string | null,
    language: string,
    stream?: StreamSender,
  ): Promise<Answer> {
    const request = async (): Promise<AnswerRequest> => {
      const [titles, fields] = await Promise.all([
        this.generator.namesSources ? this.titles(scope, chunks) : undefined,
        this.generator.readsFieldDescriptions && chunks.some((c, i) => readRecord(c, i)) ? this.fieldDescriptions(scope, chunks) : undefined,
      ]);
      return { question, history, chunks, instructions, titles, fields, language };
    };
    if (stream) return this.streamAnswer(stream, chunks, language, request);
    if (chunks.length === 0) return { text: notInData(language), sources: [], finish: 'complete' };
    const generated = boundAnswer(await this.generator.generate(await request()), this.config.MAX_ANSWER_CHARS);
    assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
    return { ...toSources(generated, chunks), finish: generated.finish ?? 'complete' };
  }

  /** {@link answer}, its text sent as it is written (by a generator that streams; else sentence by sentence), then its sources. */
  private async streamAnswer(stream: StreamSender, chunks: RetrievedChunk[], language: string, answerRequest: () => Promise<AnswerRequest>): Promise<Answer> {
    const writer = new AnswerWriter(chunks, this.config.MAX_ANSWER_CHARS, (text) => stream.send({ event: 'delta', data: { text } }));
    let generated: GeneratedAnswer = { text: notInData(language), citations: [] };
    if (chunks.length > 0) {
      const request = await answerRequest();
      generated = this.generator.generateStream
        ? await this.generator.generateStream(request, (draft) => writer.draft(draft), stream.signal)
        : await this.generator.generate(request);
    }
    stream.throwIfStopped();
    assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
    const answer = await writer.finish(generated);
    await stream.send({ event: 'sources', data: { sources: answer.sources } });
    return answer;
  }

  /** The retrieved items' own titles, by item id; an item without one, or whose record cannot be read now, has none. */
  private async titles(scope: Scope, chunks: RetrievedChunk[]): Promise<Record<string, string>> {
    const ids = [...new Set(chunks.map((c) => c.id))];
    const records = await Promise.all(ids.map((id) => this.bus.request(Subjects.catalog.itemsGet, { scope, id }).catch(() => null)));
    return Object.fromEntries(records.flatMap((r) => (r && itemTitle(r.data) ? [[r.id, itemTitle(r.data)]] : [])));
  }

  /**
   * The descriptions declared for the fields of the chunks' collections (the extractive answerer matches them like
   * field labels); asked of catalog only when a retrieved chunk is a record.
   */
  private async fieldDescriptions(scope: Scope, chunks: RetrievedChunk[]): Promise<FieldDescriptions> {
    const slugs = [...new Set(chunks.map((c) => c.collection))];
    const collections = await this.bus.request(Subjects.catalog.collectionsResolve, { scope, slugs, path: 'collections' });
    const out: FieldDescriptions = {};
    for (const c of collections) {
      const described = c.fields.filter((f) => f.description);
      if (described.length) out[c.slug] = Object.fromEntries(described.map((f) => [f.name, f.description!]));
    }
    return out;
  }

  /** Chunks for a question; a language given with it is one more the question is analyzed in. */
  private retrieve(
    scope: Scope,
    text: string,
    collections: string[] | null,
    tenant: number | null,
    filter: Record<string, unknown> | null,
    language: string | null,
  ): Promise<RetrievedChunk[]> {
    return this.bus.request(Subjects.retrieval.search, { scope, text, collections, tenant, filter, limit: this.config.ANSWER_CONTEXT_ITEMS, language });
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

  private async upsertUser(tx: EntityManager, scope: Scope, identifier: Identifier): Promise<UserEntity> {
    const email = identifier.email?.trim() || null;
    const avatar = email ? `https://www.gravatar.com/avatar/${createHash('sha256').update(email.toLowerCase()).digest('hex')}?d=identicon` : null;
    const [row] = await tx.query<UserEntity[]>(
      `INSERT INTO conversation.users (id, project_id, external_id, name, email, avatar, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (project_id, external_id) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, conversation.users.name),
         email = COALESCE(EXCLUDED.email, conversation.users.email),
         avatar = COALESCE(EXCLUDED.avatar, conversation.users.avatar)
       RETURNING id, project_id AS "projectId", external_id AS "externalId", name, email, avatar, created_at AS "createdAt"`,
      [uuidv7(), scope.projectId, identifier.id, identifier.name ?? null, email, avatar],
    );
    return row;
  }

  private async findChat(scope: Scope, id: string): Promise<ChatEntity> {
    const chat = isUuid(id) ? await this.ds.getRepository(ChatEntity).findOneBy({ id, projectId: scope.projectId }) : null;
    if (!chat) throw ServiceError.notFound('Chat');
    return chat;
  }

  private async findMessage(scope: Scope, chatId: string, id: string): Promise<{ message: MessageEntity; user: UserEntity | null }> {
    const message = isUuid(id) && isUuid(chatId) ? await this.ds.getRepository(MessageEntity).findOneBy({ id, chatId, projectId: scope.projectId }) : null;
    if (!message) throw ServiceError.notFound('Message');
    const user = message.userId ? await this.ds.getRepository(UserEntity).findOneBy({ id: message.userId }) : null;
    return { message, user };
  }

  private async withMessages(chats: ChatEntity[]): Promise<ChatView[]> {
    if (chats.length === 0) return [];
    const messages = await this.ds.getRepository(MessageEntity).find({ where: { chatId: In(chats.map((c) => c.id)) }, order: { id: 'ASC' } });
    const userIds = [...new Set([...chats.map((c) => c.userId), ...messages.map((m) => m.userId)].filter((u): u is string => !!u))];
    const users = userIds.length ? await this.ds.getRepository(UserEntity).findBy({ id: In(userIds) }) : [];
    const byUser = new Map(users.map((u) => [u.id, u]));
    const byChat = new Map<string, MessageEntity[]>();
    for (const m of messages) byChat.set(m.chatId, [...(byChat.get(m.chatId) ?? []), m]);
    return chats.map((c) => toChatView(c, byChat.get(c.id) ?? [], byUser));
  }
}
