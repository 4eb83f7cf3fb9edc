import type { Source } from '@askdata/client';

/** One question and its answer, as the widget shows them. */
export interface Turn {
  question: string;
  messageId: string | null;
  text: string;
  html: string | null;
  sources: Source[];
  feedback: 'positive' | 'negative' | null;
  error: string | null;
}

export interface Conversation {
  chatId: string | null;
  turns: Turn[];
}

const MAX_TURNS = 50;

/** The conversation survives a reload: kept in localStorage per key (and per session, which may change tenant). */
export class ConversationStore {
  constructor(private readonly name: string) {}

  load(): Conversation {
    try {
      const raw = localStorage.getItem(this.name);
      const parsed = raw ? (JSON.parse(raw) as Conversation) : null;
      if (parsed && Array.isArray(parsed.turns)) return { chatId: parsed.chatId ?? null, turns: parsed.turns.filter((t) => !t.error || t.messageId) };
    } catch {
      // Storage refused (private mode) or unreadable: start afresh.
    }
    return { chatId: null, turns: [] };
  }

  save(c: Conversation): void {
    try {
      localStorage.setItem(this.name, JSON.stringify({ chatId: c.chatId, turns: c.turns.slice(-MAX_TURNS) }));
    } catch {
      // Storage full or refused: the conversation lasts as long as the page.
    }
  }
}
