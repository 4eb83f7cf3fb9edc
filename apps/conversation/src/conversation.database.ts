import { ServiceDatabase, WebhookOutboxEntity } from '@askdata/common';
import { ChatEntity, MessageEntity, UserEntity } from './chats/chat.entity';
import { MIGRATIONS } from './migrations';

export const conversationDatabase: ServiceDatabase = {
  schema: 'conversation',
  entities: [UserEntity, ChatEntity, MessageEntity, WebhookOutboxEntity],
  migrations: MIGRATIONS,
};
