import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { admin, messageOf, Project, session } from './api';
import { Conversations } from './conversations';
import { Collections, Items } from './data';
import { Upserts } from './upserts';
import { Playground } from './playground';
import { ProjectKeys, Projects } from './projects';
import { ErrorNote, Field, Status, useLoad } from './ui';
import './styles.css';

/** The route is the hash: `#/projects`, `#/projects/<id>/<tab>`. */
function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    session.signIn(token.trim());
    try {
      await admin('GET', '/projects');
      onSignedIn();
    } catch (err) {
      session.signOut();
      setError(messageOf(err));
    }
  };
  return (
    <main class="signin">
      <h1>askdata console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <Field label="Admin token" hint="Printed on first start and kept in DATA_DIR/admin-token. Kept in this tab only.">
          <input type="password" name="token" autoComplete="current-password" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={error} />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

const TABS = [
  ['keys', 'Settings and keys'],
  ['collections', 'Collections'],
  ['items', 'Items'],
  ['upserts', 'Upserts'],
  ['playground', 'Playground'],
  ['conversations', 'Conversations'],
] as const;

function ProjectPage({ id, tab }: { id: string; tab: string }) {
  const project = useLoad(async () => (await admin<{ data: Project[] }>('GET', '/projects')).data.find((p) => p.id === id) ?? null, [id]);
  return (
    <Status state={project}>
      {(p) =>
        p ? (
          <>
            <h1>{p.name}</h1>
            <nav class="tabs" aria-label="Project">
              {TABS.map(([key, label]) => (
                <a key={key} href={`#/projects/${id}/${key}`} aria-current={tab === key ? 'page' : undefined}>
                  {label}
                </a>
              ))}
            </nav>
            {tab === 'collections' ? <Collections project={p} /> : null}
            {tab === 'items' ? <Items project={p} /> : null}
            {tab === 'upserts' ? <Upserts project={p} /> : null}
            {tab === 'playground' ? <Playground project={p} /> : null}
            {tab === 'conversations' ? <Conversations project={p} /> : null}
            {tab === 'keys' ? <ProjectKeys project={p} onChanged={project.reload} /> : null}
          </>
        ) : (
          <ErrorNote error="No project has this id." />
        )
      }
    </Status>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  const route = useRoute();
  useEffect(() => {
    const out = () => {
      session.signOut();
      setSignedIn(false);
    };
    window.addEventListener('askdata:signed-out', out);
    return () => window.removeEventListener('askdata:signed-out', out);
  }, []);
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  const [section, id, tab] = route;
  return (
    <>
      <header class="top">
        <a href="#/projects" class="brand">
          askdata
        </a>
        <button type="button" onClick={() => window.dispatchEvent(new Event('askdata:signed-out'))}>
          Sign out
        </button>
      </header>
      <main>{section === 'projects' && id ? <ProjectPage id={id} tab={tab ?? 'keys'} /> : <Projects />}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
