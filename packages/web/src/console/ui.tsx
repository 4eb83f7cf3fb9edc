import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Page } from '@askdata/client';
import { messageOf } from './api';

/** The state of something loaded: its value, its error in words, and a way to load it again. */
export interface Loaded<T> {
  value: T | null;
  error: string | null;
  reload: () => void;
}

/** Loads `load()` now and whenever `deps` change; the newest call wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value: T | null; error: string | null }>({ value: null, error: null });
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    load().then(
      (value) => mine === seq.current && setState({ value, error: null }),
      (e: unknown) => mine === seq.current && setState((s) => ({ value: s.value, error: messageOf(e) })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Loading, error or the content. */
export function Status<T>({ state, children }: { state: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (state.value === null)
    return state.error ? (
      <ErrorNote error={state.error} />
    ) : (
      <p class="muted" aria-live="polite">
        Loading…
      </p>
    );
  return (
    <>
      <ErrorNote error={state.error} />
      {children(state.value)}
    </>
  );
}

/** A page of a list: loading, an error, its empty state, or the content with the pager below. */
export function PagedList<T>({
  state,
  empty,
  onPage,
  children,
}: {
  state: Loaded<Page<T>>;
  empty: string;
  onPage: (n: number) => void;
  children: (page: Page<T>) => ComponentChildren;
}) {
  return (
    <Status state={state}>
      {(p) =>
        p.data.length === 0 ? (
          <Empty>{empty}</Empty>
        ) : (
          <>
            {children(p)}
            <Pager page={p} onPage={onPage} />
          </>
        )
      }
    </Status>
  );
}

/** Previous and next page, with where we are. */
export function Pager({ page, onPage }: { page: Page<unknown>; onPage: (n: number) => void }) {
  const { current_page, last_page, total, from, to } = page.meta;
  if (total === 0) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={current_page <= 1} onClick={() => onPage(current_page - 1)}>
        Previous
      </button>
      <span>
        {from}–{to} of {total} (page {current_page} of {last_page})
      </span>
      <button type="button" disabled={current_page >= last_page} onClick={() => onPage(current_page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** A date and time in the reader's locale. */
export function When({ at }: { at: string | null }) {
  if (!at) return <span class="muted">—</span>;
  const d = new Date(at);
  return <time dateTime={at}>{d.toLocaleString()}</time>;
}

/** A button that copies `text`, saying when it did. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
    } catch {
      setDone(false);
    }
  };
  return (
    <button type="button" onClick={() => void copy()}>
      {done ? 'Copied' : label}
    </button>
  );
}

/** A labelled form field. */
export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="field">
      <label class="field">
        <span>{label}</span>
        {children}
      </label>
      {hint ? <small class="muted">{hint}</small> : null}
    </div>
  );
}
