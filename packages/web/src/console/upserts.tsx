import { useEffect, useState } from 'preact/hooks';
import type { Upsert } from '@askdata/client';
import { Project, projectClient } from './api';
import { Field, PagedList, useLoad, When } from './ui';

const PER_PAGE = 20;

const unfinished = (u: Upsert) => u.status === 'queued' || u.status === 'processing';

function duration(u: Upsert): string {
  if (!u.started_at) return '—';
  const end = u.completed_at ? Date.parse(u.completed_at) : Date.now();
  return `${((end - Date.parse(u.started_at)) / 1000).toFixed(1)} s`;
}

export function Upserts({ project }: { project: Project }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const list = useLoad(
    () => projectClient(project.id).upserts.list({ page, per_page: PER_PAGE, ...(status ? { status: status as Upsert['status'] } : {}) }),
    [project.id, page, status],
  );
  // While any upsert on the page is unfinished, the page is read again every two seconds.
  const pending = (list.value?.data ?? []).some(unfinished);
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(list.reload, 2000);
    return () => clearTimeout(timer);
  }, [pending, list.value]);
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status">
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">all</option>
            {['queued', 'processing', 'completed', 'failed'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        {pending ? (
          <p class="muted" aria-live="polite">
            Refreshing while upserts are unfinished…
          </p>
        ) : null}
      </form>
      <PagedList state={list} empty="No upserts yet: POST /v1/upserts with a secret key." onPage={setPage}>
        {(p) => (
          <>
            <table class="stack">
              <caption>Upserts</caption>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Collection</th>
                  <th scope="col">Items</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Took</th>
                  <th scope="col">Failure</th>
                </tr>
              </thead>
              <tbody>
                {p.data.map((u) => (
                  <tr key={u.id} data-testid="upsert-row">
                    <td data-label="Created">
                      <When at={u.created_at} />
                    </td>
                    <td data-label="Kind">{u.kind}</td>
                    <td data-label="Collection">{u.collection}</td>
                    <td data-label="Items">{u.items_count}</td>
                    <td data-label="Status">
                      <span class={`status ${u.status}`}>{u.status}</span>
                    </td>
                    <td data-label="Attempts">{u.attempts}</td>
                    <td data-label="Took">{duration(u)}</td>
                    <td data-label="Failure">{u.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </PagedList>
    </>
  );
}
