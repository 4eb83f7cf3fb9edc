import { useEffect, useRef, useState } from 'preact/hooks';
import { AnswerEvent, ApiError, AskdataClient } from '@askdata/client';
import type { WidgetOptions } from './options';
import { Conversation, ConversationStore, Turn } from './store';

/** `window.Askdata`: what the page may call. */
export interface WidgetApi {
  /** A session token minted by the page's backend (POST /v1/sessions): required in a multi-tenant project. */
  setSession(token: string | null): void;
  open(): void;
  close(): void;
  newChat(): void;
}

/** A thumb, drawn (no emoji font needed); `down` turns it over. */
function Thumb({ down = false }: { down?: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
      <path
        transform={down ? 'rotate(180 12 12)' : undefined}
        fill="currentColor"
        d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3a1.5 1.5 0 0 0-.5-1L13.1 1 7.6 6.6A2 2 0 0 0 7 8v11a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z"
      />
    </svg>
  );
}

/** What a failure means to a visitor, in words. */
function explain(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 403) return 'This assistant is not available on this site: its key does not allow this web address.';
    if (error.status === 401) return 'This assistant cannot answer here yet: the page has not signed you in to it.';
    if (error.status === 429) return 'Too many questions at once: please wait a moment and try again.';
    if (error.status >= 500) return 'The assistant is unavailable right now. Please try again later.';
    return error.message;
  }
  return 'The assistant could not be reached. Please check your connection and try again.';
}

export function Widget({ options, expose }: { options: WidgetOptions; expose: (api: WidgetApi) => void }) {
  const store = useRef(new ConversationStore(`askdata-widget:${options.key}`)).current;
  const [open, setOpen] = useState(false);
  const [session, setSession] = useState<string | null>(options.session);
  const [conv, setConv] = useState<Conversation>(() => store.load());
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const latest = useRef(conv);
  const input = useRef<HTMLTextAreaElement>(null);
  const launcher = useRef<HTMLButtonElement>(null);

  const commit = (next: Conversation) => {
    latest.current = next;
    setConv(next);
    store.save(next);
  };
  const patchLast = (patch: Partial<Turn>) => {
    const turns = latest.current.turns.slice();
    turns[turns.length - 1] = { ...turns[turns.length - 1], ...patch };
    commit({ ...latest.current, turns });
  };
  const newChat = () => commit({ chatId: null, turns: [] });

  useEffect(() => {
    expose({ setSession, open: () => setOpen(true), close: () => setOpen(false), newChat });
  }, []);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  const client = () => new AskdataClient({ baseUrl: options.base, apiKey: options.key, ...(session ? { sessionToken: session } : {}), maxRetries: 1 });

  const ask = async (e: Event) => {
    e.preventDefault();
    const question = text.trim();
    if (!question || busy) return;
    setText('');
    setBusy(true);
    commit({ ...latest.current, turns: [...latest.current.turns, { question, messageId: null, text: '', html: null, sources: [], feedback: null, error: null }] });
    try {
      const c = client();
      const chatId = latest.current.chatId;
      const stream = chatId
        ? c.chats.followUpStream(chatId, { text: question })
        : c.chats.createStream({ text: question, ...(options.collections.length ? { collections: options.collections } : {}) });
      let answer = '';
      for await (const ev of stream as AsyncIterable<AnswerEvent<unknown>>) {
        if (ev.event === 'start') {
          commit({ ...latest.current, chatId: ev.data.chat });
          patchLast({ messageId: ev.data.message });
        } else if (ev.event === 'delta') patchLast({ text: (answer += ev.data.text) });
        else if (ev.event === 'sources') patchLast({ sources: ev.data.sources });
        else if (ev.event === 'done') {
          const done = ev.data as { text_html?: string; messages?: Array<{ role: string; text_html: string }> };
          patchLast({ html: done.text_html ?? done.messages?.filter((m) => m.role === 'assistant').pop()?.text_html ?? null });
        } else if (ev.event === 'error') patchLast({ error: explain(new ApiError(ev.data.status, ev.data)) });
      }
    } catch (err) {
      patchLast({ error: explain(err) });
    } finally {
      setBusy(false);
    }
  };

  const thumb = async (index: number, value: 'positive' | 'negative') => {
    const turn = latest.current.turns[index];
    const chatId = latest.current.chatId;
    if (!chatId || !turn.messageId) return;
    try {
      await client().chats.messageFeedback(chatId, turn.messageId, { feedback: value });
      const turns = latest.current.turns.slice();
      turns[index] = { ...turn, feedback: value };
      commit({ ...latest.current, turns });
    } catch (err) {
      const turns = latest.current.turns.slice();
      turns[index] = { ...turn, error: explain(err) };
      commit({ ...latest.current, turns });
    }
  };

  const close = () => {
    setOpen(false);
    launcher.current?.focus();
  };

  return (
    <div class={`askdata ${options.position}`} onKeyDown={(e) => e.key === 'Escape' && open && close()}>
      {open ? (
        <section class="panel" role="dialog" aria-label={options.title}>
          <header>
            <h2>{options.title}</h2>
            <button type="button" onClick={newChat} disabled={busy}>
              New chat
            </button>
            <button type="button" aria-label="Close" onClick={close}>
              ×
            </button>
          </header>
          <div class="log" aria-live="polite">
            <p class="bot">{options.greeting}</p>
            {conv.turns.map((t, i) => (
              <div class="turn" key={i}>
                <p class="me">{t.question}</p>
                <div class="bot" data-testid="widget-answer">
                  {t.html !== null ? <div dangerouslySetInnerHTML={{ __html: t.html }} /> : t.error ? null : <p>{t.text || '…'}</p>}
                  {t.error ? (
                    <p class="error" role="alert">
                      {t.error}
                    </p>
                  ) : null}
                  {t.sources.length ? (
                    <ol class="sources" aria-label="Sources">
                      {t.sources.map((s) => (
                        <li key={s.index}>{s.url ? <a href={s.url} target="_blank" rel="noopener noreferrer">{`[${s.index}] ${s.item_id}`}</a> : `[${s.index}] ${s.item_id}`}</li>
                      ))}
                    </ol>
                  ) : null}
                  {t.html !== null && t.messageId ? (
                    <div class="thumbs" role="group" aria-label="Was this helpful?">
                      <button type="button" aria-label="Helpful" aria-pressed={t.feedback === 'positive'} onClick={() => void thumb(i, 'positive')}>
                        <Thumb />
                      </button>
                      <button type="button" aria-label="Not helpful" aria-pressed={t.feedback === 'negative'} onClick={() => void thumb(i, 'negative')}>
                        <Thumb down />
                      </button>
                    </div>
                  ) : null}
                </div>
              </div>
            ))}
          </div>
          <form onSubmit={(e) => void ask(e)}>
            <label class="hidden" for="askdata-question">
              Your question
            </label>
            <textarea
              id="askdata-question"
              ref={input}
              rows={2}
              maxLength={4000}
              value={text}
              placeholder="Ask a question"
              onInput={(e) => setText(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) void ask(e);
              }}
            />
            <button type="submit" class="send" disabled={busy || !text.trim()}>
              {busy ? '…' : 'Send'}
            </button>
          </form>
        </section>
      ) : null}
      <button
        type="button"
        class="launcher"
        ref={launcher}
        aria-expanded={open}
        aria-label={open ? `Close ${options.title}` : options.title}
        onClick={() => (open ? close() : setOpen(true))}
      >
        {open ? '×' : '?'}
      </button>
    </div>
  );
}
