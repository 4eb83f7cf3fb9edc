import { charCount, ChatView, MessageView, UserView, wholeGraphemes } from '@askdata/contracts';
import { isoMicro } from '@askdata/common';
import { ChatEntity, MessageEntity, UserEntity } from './chat.entity';

export function toUserView(u: UserEntity | null | undefined): UserView | null {
  if (!u) return null;
  return { id: u.externalId, name: u.name, email: u.email, avatar: u.avatar, created_at: isoMicro(u.createdAt) };
}

export function toMessageView(m: MessageEntity, user: UserEntity | null | undefined): MessageView {
  return {
    id: m.id,
    chat_id: m.chatId,
    role: m.role,
    text: m.text,
    text_html: m.textHtml,
    identifier: m.identifier,
    feedback: m.feedback,
    created_at: isoMicro(m.createdAt),
    user: m.role === 'user' ? toUserView(user) : null,
    sources: m.sources,
    finish_reason: m.finishReason,
  };
}

export function toChatView(c: ChatEntity, messages: MessageEntity[], users: Map<string, UserEntity>): ChatView {
  const user = c.userId ? users.get(c.userId) : undefined;
  return {
    id: c.id,
    name: c.name,
    tenant: c.tenant,
    created_at: isoMicro(c.createdAt),
    user: toUserView(user),
    messages: messages.map((m) => toMessageView(m, m.userId ? users.get(m.userId) : undefined)),
    type: c.type,
    feedback: c.feedback,
  };
}

/**
 * The first question, cut at 80 characters (code points, as every limit counts them) on a word boundary, and never
 * inside a character drawn with several (an emoji's surrogate pair or sequence, a letter and its accents).
 */
export function chatName(question: string, max = 80): string {
  const text = question.replace(/\s+/g, ' ').trim();
  if (charCount(text) <= max) return text;
  const cut = wholeGraphemes(text, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : wholeGraphemes(text, max) || [...text].slice(0, max).join('')).trimEnd();
}
