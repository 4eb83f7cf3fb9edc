import { Injectable } from '@nestjs/common';
import { ChatView, isUuid, MessageView, Paged, BusRequest as Req, Scope, Subjects } from '@askdata/contracts';
import { ServiceError, WebhookOutbox } from '@askdata/common';
import { DataSource, In } from 'typeorm';
import { ChatEntity, MessageEntity, UserEntity } from './chat.entity';
import { toChatView, toMessageView } from './views';

type S = typeof Subjects.conversation;

/** Stored chats and their messages: listed and read within the project, and the feedback given on them. */
@Injectable()
export class ChatsService {
  constructor(private readonly ds: DataSource) {}

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
    const [view] = await this.withMessages([await this.find(scope, id)]);
    return view;
  }

  async message(scope: Scope, chatId: string, id: string): Promise<MessageView> {
    const { message, user } = await this.findMessage(scope, chatId, id);
    return toMessageView(message, user);
  }

  /** Feedback is stored with its webhook event (`feedback.created`, carrying the chat as answered here). */
  async chatFeedback(scope: Scope, id: string, feedback: string): Promise<ChatView> {
    const chat = await this.find(scope, id);
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

  /** The project's chat of id `id`; not found (404) otherwise. */
  async find(scope: Scope, id: string): Promise<ChatEntity> {
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
