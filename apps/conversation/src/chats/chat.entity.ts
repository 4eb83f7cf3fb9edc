import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ChatType, FinishReason, MessageRole, SourceView } from '@askdata/contracts';

@Entity({ name: 'users' })
@Index('users_project_external_uq', ['projectId', 'externalId'], { unique: true })
export class UserEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  /** `identifier.id` as the client sent it. */
  @Column('varchar', { name: 'external_id', length: 255 }) externalId!: string;
  @Column('varchar', { length: 255, nullable: true }) name!: string | null;
  @Column('varchar', { length: 255, nullable: true }) email!: string | null;
  @Column('text', { nullable: true }) avatar!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

@Entity({ name: 'chats' })
@Index('chats_project_type_idx', ['projectId', 'type', 'id'])
@Index('chats_project_user_idx', ['projectId', 'userId'])
@Index('chats_project_tenant_idx', ['projectId', 'tenant'])
export class ChatEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 8 }) type!: ChatType;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('integer', { nullable: true }) tenant!: number | null;
  @Column('uuid', { name: 'user_id', nullable: true }) userId!: string | null;
  @Column('text', { nullable: true }) feedback!: string | null;
  /** The question's scope, inherited by follow-ups. */
  @Column('jsonb', { nullable: true }) collections!: string[] | null;
  @Column('jsonb', { nullable: true }) filter!: object | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

@Entity({ name: 'messages' })
@Index('messages_chat_idx', ['chatId', 'id'])
// GIN (jsonb_path_ops) over `sources`, made by its migration: the messages citing an item, when it is deleted.
@Index('messages_sources_idx', { synchronize: false })
export class MessageEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'chat_id' }) chatId!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('varchar', { length: 16 }) role!: MessageRole;
  @Column('text') text!: string;
  @Column('text', { name: 'text_html' }) textHtml!: string;
  @Column('varchar', { length: 255, nullable: true }) identifier!: string | null;
  @Column('uuid', { name: 'user_id', nullable: true }) userId!: string | null;
  @Column('text', { nullable: true }) feedback!: string | null;
  @Column('jsonb', { default: () => "'[]'" }) sources!: SourceView[];
  /** How an assistant message's answer ended; null on user messages. */
  @Column('varchar', { name: 'finish_reason', length: 16, nullable: true }) finishReason!: FinishReason | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}
