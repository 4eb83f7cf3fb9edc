import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A chat asked through a publishable key, and whose it is: only requests with a publishable key of the same project,
 * in a session of the same tenant and subject (`user:<identifier id>`, `session:<token id>` for a session without a
 * user, `none` without a session), may read it, continue it or give feedback on it. Chats made with secret keys
 * have no row, so no publishable key reaches them.
 */
@Entity({ name: 'session_chats' })
export class SessionChatEntity {
  @PrimaryColumn('uuid', { name: 'chat_id' }) chatId!: string;
  @Column('uuid', { name: 'project_id' }) projectId!: string;
  @Column('integer', { nullable: true }) tenant!: number | null;
  @Column('varchar', { length: 300 }) subject!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}
