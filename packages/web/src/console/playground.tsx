import { useRef, useState } from 'preact/hooks';
import type { AnswerEvent, Source } from '@askdata/client';
import { messageOf, Project, projectClient } from './api';
import { Empty, ErrorNote, Field, useLoad } from './ui';

interface Turn {
  question: string;
  messageId: string | null;
  text: string;
  html: string | null;
  sources: Source[];
  feedback: string | null;
  error: string | null;
}

/** The numbers cited in an answer's text: [1], [2]. */
export function citedIndexes(text: string): Set<number> {
  return new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
}

function Sources({ turn }: { turn: Turn }) {
  const cited = citedIndexes(turn.text);
  if (!turn.sources.length) return <Empty>No sources cited.</Empty>;
  return (
    <ol class="sources" aria-label="Sources">
      {turn.sources.map((s) => (
        <li key={s.index} class={cited.has(s.index) ? 'cited' : ''} data-testid="source">
          <strong>[{s.index}]</strong> {s.url ? <a href={s.url}>{s.item_id}</a> : s.item_id} <span class="badge">{s.collection}</span>
          <p>{cited.has(s.index) ? <mark>{s.snippet}</mark> : s.snippet}</p>
        </li>
      ))}
    </ol>
  );
}

export function Playground({ project }: { project: Project }) {
  const client = projectClient(project.id);
  const collections = useLoad(() => client.collections.list({ per_page: 100 }), [project.id]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [tenant, setTenant] = useState('');
  const [filter, setFilter] = useState('');
  const [text, setText] = useState('');
  const [chatId, setChatId] = useState<string | null>(null);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const current = useRef<Turn[]>([]);

  const update = (patch: Partial<Turn>) => {
    const list = current.current.slice();
    list[list.length - 1] = { ...list[list.length - 1], ...patch };
    current.current = list;
    setTurns(list);
  };

  const ask = async (e: Event) => {
    e.preventDefault();
    setError(null);
    let parsedFilter: Record<string, unknown> | undefined;
    if (filter.trim()) {
      try {
        parsedFilter = JSON.parse(filter) as Record<string, unknown>;
      } catch {
        setError('The filter is not valid JSON, e.g. {"category": "billing"}.');
        return;
      }
    }
    const question = text.trim();
    if (!question) return;
    current.current = [...current.current, { question, messageId: null, text: '', html: null, sources: [], feedback: null, error: null }];
    setTurns(current.current);
    setText('');
    setBusy(true);
    try {
      const stream = chatId
        ? client.chats.followUpStream(chatId, { text: question })
        : client.chats.createStream({
            text: question,
            ...(chosen.length ? { collections: chosen } : {}),
            ...(/^\d+$/.test(tenant) ? { tenant: Number(tenant) } : {}),
            ...(parsedFilter ? { filter: parsedFilter } : {}),
          });
      let answer = '';
      for await (const ev of stream as AsyncIterable<AnswerEvent<unknown>>) {
        if (ev.event === 'start') {
          setChatId(ev.data.chat);
          update({ messageId: ev.data.message });
        } else if (ev.event === 'delta') {
          answer += ev.data.text;
          update({ text: answer });
        } else if (ev.event === 'sources') update({ sources: ev.data.sources });
        else if (ev.event === 'done') {
          const done = ev.data as { text_html?: string; messages?: Array<{ role: string; text_html: string }> };
          const html = done.text_html ?? done.messages?.filter((m) => m.role === 'assistant').pop()?.text_html ?? null;
          update({ html });
        } else if (ev.event === 'error') update({ error: ev.data.message });
      }
    } catch (err) {
      update({ error: messageOf(err) });
    } finally {
      setBusy(false);
    }
  };

  const feedback = async (turn: number, value: 'positive' | 'negative') => {
    const t = current.current[turn];
    if (!chatId || !t.messageId) return;
    try {
      await client.chats.messageFeedback(chatId, t.messageId, { feedback: value });
      const list = current.current.slice();
      list[turn] = { ...t, feedback: value };
      current.current = list;
      setTurns(list);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const reset = () => {
    current.current = [];
    setTurns([]);
    setChatId(null);
  };

  return (
    <div class="playground">
      <form class="card stack" onSubmit={(e) => void ask(e)}>
        {chatId ? null : (
          <>
            <fieldset>
              <legend>Collections (none: all)</legend>
              {(collections.value?.data ?? []).map((c) => (
                <label key={c.id} class="check">
                  <input
                    type="checkbox"
                    checked={chosen.includes(c.slug)}
                    onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, c.slug] : chosen.filter((s) => s !== c.slug))}
                  />
                  {c.slug}
                </label>
              ))}
            </fieldset>
            <div class="filters">
              <Field label="Tenant" hint={project.tenancy === 'multi' ? 'Required: this project is multi-tenant.' : undefined}>
                <input name="tenant" inputMode="numeric" value={tenant} onInput={(e) => setTenant(e.currentTarget.value)} />
              </Field>
              <Field label="Filter (JSON)">
                <input name="filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} placeholder='{"category": "billing"}' />
              </Field>
            </div>
          </>
        )}
        <Field label={chatId ? 'Follow-up' : 'Question'}>
          <textarea name="question" rows={2} required maxLength={4000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={error} />
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Answering…' : 'Ask'}
          </button>
          {turns.length ? (
            <button type="button" onClick={reset} disabled={busy}>
              New chat
            </button>
          ) : null}
        </div>
      </form>
      {turns.length === 0 ? <Empty>Ask a question to see the answer stream in, with its sources.</Empty> : null}
      {turns.map((t, i) => (
        <section class="turn" key={i} aria-label={`Question ${i + 1}`}>
          <p class="question">{t.question}</p>
          <div class="answer-row">
            <div class="answer" data-testid="answer" aria-live="polite" aria-busy={busy && i === turns.length - 1}>
              {t.html !== null ? <div dangerouslySetInnerHTML={{ __html: t.html }} /> : <p>{t.text || '…'}</p>}
              <ErrorNote error={t.error} />
              {t.messageId && t.html !== null ? (
                <div class="row" role="group" aria-label="Feedback">
                  <button type="button" aria-pressed={t.feedback === 'positive'} onClick={() => void feedback(i, 'positive')}>
                    Helpful
                  </button>
                  <button type="button" aria-pressed={t.feedback === 'negative'} onClick={() => void feedback(i, 'negative')}>
                    Not helpful
                  </button>
                </div>
              ) : null}
            </div>
            <Sources turn={t} />
          </div>
        </section>
      ))}
    </div>
  );
}
