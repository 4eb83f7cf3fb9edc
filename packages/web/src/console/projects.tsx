import { useState } from 'preact/hooks';
import { admin, ApiKey, messageOf, Project } from './api';
import { CopyButton, Empty, ErrorNote, Field, Status, useLoad, When } from './ui';

/** Name, tenancy and instructions: the form of a new project and of an edit. */
function ProjectForm({ initial, submitLabel, onSubmit }: { initial?: Project; submitLabel: string; onSubmit: (p: Partial<Project>) => Promise<void> }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [tenancy, setTenancy] = useState<'single' | 'multi'>(initial?.tenancy ?? 'single');
  const [instructions, setInstructions] = useState(initial?.instructions ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit({ name: name.trim(), tenancy, instructions: instructions.trim() || null });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" onSubmit={(e) => void submit(e)}>
      <Field label="Name">
        <input name="name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Tenancy" hint="Multi-tenant: every item and question names its tenant.">
        <select name="tenancy" value={tenancy} onChange={(e) => setTenancy(e.currentTarget.value as 'single' | 'multi')}>
          <option value="single">single</option>
          <option value="multi">multi</option>
        </select>
      </Field>
      <Field label="Instructions" hint="Optional: how answers should be written.">
        <textarea name="instructions" rows={3} value={instructions} onInput={(e) => setInstructions(e.currentTarget.value)} />
      </Field>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}

export function Projects() {
  const projects = useLoad(async () => (await admin<{ data: Project[] }>('GET', '/projects')).data, []);
  const [creating, setCreating] = useState(false);
  const create = async (p: Partial<Project>) => {
    const created = await admin<{ data: Project }>('POST', '/projects', { name: p.name, tenancy: p.tenancy, ...(p.instructions ? { instructions: p.instructions } : {}) });
    location.hash = `#/projects/${created.data.id}/keys`;
  };
  return (
    <>
      <div class="row">
        <h1>Projects</h1>
        <button type="button" class="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New project
        </button>
      </div>
      {creating ? <ProjectForm submitLabel="Create project" onSubmit={create} /> : null}
      <Status state={projects}>
        {(list) =>
          list.length === 0 ? (
            <Empty>No projects yet: create one to get its keys.</Empty>
          ) : (
            <ul class="list">
              {list.map((p) => (
                <li key={p.id}>
                  <a href={`#/projects/${p.id}/keys`}>{p.name}</a> <span class="badge">{p.tenancy}</span>{' '}
                  <small class="muted">
                    created <When at={p.created_at} />
                  </small>
                </li>
              ))}
            </ul>
          )
        }
      </Status>
    </>
  );
}

function NewKey({ project, onCreated }: { project: Project; onCreated: () => void }) {
  const [kind, setKind] = useState<'secret' | 'publishable'>('secret');
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setShown(null);
    try {
      const list = origins.split(/[\s,]+/).filter(Boolean);
      const body = { kind, ...(name.trim() ? { name: name.trim() } : {}), ...(kind === 'publishable' ? { origins: list } : {}) };
      const created = await admin<{ data: ApiKey & { key: string } }>('POST', `/projects/${project.id}/keys`, body);
      setShown(created.data.key);
      onCreated();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <form class="card stack" onSubmit={(e) => void submit(e)}>
      <h3>New key</h3>
      <Field label="Kind">
        <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'secret' | 'publishable')}>
          <option value="secret">secret (servers)</option>
          <option value="publishable">publishable (web pages)</option>
        </select>
      </Field>
      <Field label="Key name">
        <input name="key-name" maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      {kind === 'publishable' ? (
        <Field label="Origins" hint="The pages' origins, e.g. https://shop.example, separated by spaces or commas.">
          <input name="origins" required value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        </Field>
      ) : null}
      <ErrorNote error={error} />
      <button type="submit" class="primary">
        Create key
      </button>
      {shown ? (
        <div class="notice" role="status">
          <p>The key, shown this once: keep it now.</p>
          <code class="key" data-testid="new-key">
            {shown}
          </code>{' '}
          <CopyButton text={shown} />
        </div>
      ) : null}
    </form>
  );
}

export function ProjectKeys({ project, onChanged }: { project: Project; onChanged: () => void }) {
  const keys = useLoad(async () => (await admin<{ data: ApiKey[] }>('GET', `/projects/${project.id}/keys`)).data, [project.id]);
  const [error, setError] = useState<string | null>(null);
  const revoke = async (k: ApiKey) => {
    if (!confirm(`Revoke the key ${k.prefix}…? Requests with it are refused at once.`)) return;
    try {
      await admin('DELETE', `/keys/${k.id}`);
      keys.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const update = async (p: Partial<Project>) => {
    await admin('PATCH', `/projects/${project.id}`, p);
    onChanged();
  };
  return (
    <div class="columns">
      <section>
        <h2>Settings</h2>
        <ProjectForm initial={project} submitLabel="Save" onSubmit={update} />
      </section>
      <section>
        <h2>Keys</h2>
        <ErrorNote error={error} />
        <Status state={keys}>
          {(list) =>
            list.length === 0 ? (
              <Empty>No keys: create one below.</Empty>
            ) : (
              <ul class="list">
                {list.map((k) => (
                  <li key={k.id}>
                    <code>{k.prefix}…</code> <span class="badge">{k.kind}</span> {k.name ?? ''}
                    {k.origins.length ? <small class="muted"> {k.origins.join(', ')}</small> : null}
                    <small class="muted">
                      {' '}
                      last used <When at={k.last_used_at} />
                    </small>{' '}
                    <button type="button" class="danger" onClick={() => void revoke(k)}>
                      Revoke
                    </button>
                  </li>
                ))}
              </ul>
            )
          }
        </Status>
        <NewKey project={project} onCreated={keys.reload} />
      </section>
    </div>
  );
}
