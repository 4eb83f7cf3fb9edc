import { useState } from 'preact/hooks';
import type { Chat } from '@askdata/client';
import { Project, projectClient } from './api';
import { BarChart } from './chart';
import { Empty, PagedList, Status, useLoad, When } from './ui';

/** The newest chats the figures are drawn from: at most this many pages of 100. */
const STATS_PAGES = 5;
const DAYS = 14;

interface Figures {
  perDay: Array<{ label: string; value: number }>;
  feedback: Array<{ label: string; value: number }>;
  unanswered: Array<{ chat: string; question: string; at: string }>;
  chats: number;
}

/** An answer that cites nothing says the data does not hold the answer (docs/api.md, "Answers"). */
export function figures(chats: Chat[], now = new Date()): Figures {
  const days = new Map<string, number>();
  for (let i = DAYS - 1; i >= 0; i--) days.set(new Date(now.getTime() - i * 86400000).toISOString().slice(0, 10), 0);
  const feedback = { positive: 0, negative: 0, other: 0 };
  const unanswered: Figures['unanswered'] = [];
  for (const chat of chats) {
    chat.messages.forEach((m, i) => {
      if (m.role === 'user') {
        const day = m.created_at.slice(0, 10);
        if (days.has(day)) days.set(day, days.get(day)! + 1);
        return;
      }
      if (m.feedback) feedback[m.feedback === 'positive' || m.feedback === 'negative' ? m.feedback : 'other']++;
      if (m.sources.length === 0 && m.finish_reason === 'complete') unanswered.push({ chat: chat.id, question: chat.messages[i - 1]?.text ?? '', at: m.created_at });
    });
  }
  return {
    perDay: [...days].map(([day, value]) => ({ label: day.slice(5), value })),
    feedback: [
      { label: 'positive', value: feedback.positive },
      { label: 'negative', value: feedback.negative },
      { label: 'other', value: feedback.other },
    ],
    unanswered,
    chats: chats.length,
  };
}

function Stats({ project }: { project: Project }) {
  const stats = useLoad(async () => {
    const client = projectClient(project.id);
    const chats: Chat[] = [];
    for (let page = 1; page <= STATS_PAGES; page++) {
      const p = await client.chats.list({ type: 'all', per_page: 100, page });
      chats.push(...p.data);
      if (page >= p.meta.last_page) break;
    }
    return figures(chats);
  }, [project.id]);
  return (
    <Status state={stats}>
      {(f) => (
        <section aria-label="Figures">
          <p class="muted">From the newest {f.chats} chats and one-off questions.</p>
          <div class="charts">
            <BarChart title={`Questions per day, last ${DAYS} days`} bars={f.perDay} testId="questions-chart" />
            <BarChart title="Feedback on answers" bars={f.feedback} testId="feedback-chart" />
          </div>
          <h3>Questions the data did not answer</h3>
          {f.unanswered.length === 0 ? (
            <Empty>None: every answer cited the data.</Empty>
          ) : (
            <ul class="list" data-testid="unanswered">
              {f.unanswered.slice(0, 50).map((u) => (
                <li key={u.chat + u.at}>
                  {u.question}{' '}
                  <small class="muted">
                    <When at={u.at} />
                  </small>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </Status>
  );
}

export function Conversations({ project }: { project: Project }) {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const list = useLoad(() => projectClient(project.id).chats.list({ type: 'all', page, per_page: 20 }), [project.id, page]);
  return (
    <>
      <Stats project={project} />
      <h2>Chats</h2>
      <PagedList state={list} empty="No questions asked yet." onPage={setPage}>
        {(p) => (
          <>
            <ul class="list">
              {p.data.map((c) => (
                <li key={c.id}>
                  <button type="button" class="link" aria-expanded={open === c.id} onClick={() => setOpen(open === c.id ? null : c.id)}>
                    {c.name}
                  </button>{' '}
                  <span class="badge">{c.type}</span> {c.tenant !== null ? <span class="badge">tenant {c.tenant}</span> : null}{' '}
                  <small class="muted">
                    {c.messages.length} messages · <When at={c.created_at} />
                  </small>
                  {open === c.id ? (
                    <ol class="messages">
                      {c.messages.map((m) => (
                        <li key={m.id} class={m.role}>
                          <strong>{m.role === 'user' ? (m.user?.name ?? m.identifier ?? 'user') : 'answer'}</strong>: {m.text}
                          {m.feedback ? <span class="badge">feedback: {m.feedback}</span> : null}
                        </li>
                      ))}
                    </ol>
                  ) : null}
                </li>
              ))}
            </ul>
          </>
        )}
      </PagedList>
    </>
  );
}
