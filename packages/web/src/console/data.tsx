import { useState } from 'preact/hooks';
import type { Item, SearchHit } from '@askdata/client';
import { admin, Project, projectClient } from './api';
import { Empty, Field, PagedList, Status, useLoad, When } from './ui';

const PER_PAGE = 20;

export function Collections({ project }: { project: Project }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => projectClient(project.id).collections.list({ page, per_page: PER_PAGE }), [project.id, page]);
  return (
    <PagedList state={list} empty="No collections yet: an upsert creates its collection." onPage={setPage}>
      {(p) => (
        <>
          <table class="stack">
            <caption>Collections</caption>
            <thead>
              <tr>
                <th scope="col">Slug</th>
                <th scope="col">Name</th>
                <th scope="col">Items</th>
                <th scope="col">Fields</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {p.data.map((c) => (
                <tr key={c.id}>
                  <td data-label="Slug">
                    <a href={`#/projects/${project.id}/items?collection=${encodeURIComponent(c.slug)}`}>{c.slug}</a>
                  </td>
                  <td data-label="Name">{c.name}</td>
                  <td data-label="Items" data-testid="items-count">
                    {c.items_count}
                  </td>
                  <td data-label="Fields">
                    {c.metadata.length ? c.metadata.map((f) => `${f.name} (${f.type}${f.options ? `: ${f.options.join(', ')}` : ''})`).join('; ') : <span class="muted">none</span>}
                  </td>
                  <td data-label="Created">
                    <When at={c.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </PagedList>
  );
}

interface ItemChunks {
  title: string;
  language: string | null;
  chunks: string[];
}

/** The passages the item's text was indexed as (admin API), in order. */
function Chunks({ project, item }: { project: Project; item: Item }) {
  const chunks = useLoad(() => admin<{ data: ItemChunks }>('GET', `/projects/${project.id}/items/${item.id}/chunks`), [project.id, item.id]);
  return (
    <Status state={chunks}>
      {({ data }) =>
        data.chunks.length === 0 ? (
          <Empty>Not in the search index (yet).</Empty>
        ) : (
          <>
            <h4>
              Indexed as {data.chunks.length} chunk{data.chunks.length === 1 ? '' : 's'}
              {data.title ? `, titled "${data.title}"` : ''}
            </h4>
            <ol class="chunks" data-testid="chunks">
              {data.chunks.map((text, i) => (
                <li key={i}>{text}</li>
              ))}
            </ol>
          </>
        )
      }
    </Status>
  );
}

/** An item's data as text: its fields, one per paragraph, as they were sent; then its chunks. */
function ItemDetail({ project, item }: { project: Project; item: Item }) {
  return (
    <div class="card detail">
      <h3>
        {item.item_id} <span class="badge">{item.collection.slug}</span>
        {item.tenant !== null ? <span class="badge">tenant {item.tenant}</span> : null}
      </h3>
      {Object.entries(item.data).map(([field, value]) => (
        <p key={field}>
          <strong>{field}</strong>: {typeof value === 'string' ? value : JSON.stringify(value)}
        </p>
      ))}
      {Object.keys(item.metadata).length ? (
        <p>
          <strong>metadata</strong>: <code>{JSON.stringify(item.metadata)}</code>
        </p>
      ) : null}
      {item.url ? (
        <p>
          <a href={item.url} rel="noreferrer noopener" target="_blank">
            {item.url}
          </a>
        </p>
      ) : null}
      <p class="muted">
        language {item.language ?? 'unknown'} · updated <When at={item.updated_at} /> · upserts {item.upserts.map((u) => u.status).join(', ') || 'none'}
      </p>
      <Chunks project={project} item={item} />
    </div>
  );
}

/** The item's first text field, cut short: what it is about at a glance. */
function preview(item: Item): string {
  const text = Object.values(item.data).find((v): v is string => typeof v === 'string') ?? '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function hashParams(): URLSearchParams {
  return new URLSearchParams(location.hash.split('?')[1] ?? '');
}

/** What a text search finds (`POST /v1/search`), best first; choosing one shows that item. */
function Hits({ hits, onPick }: { hits: SearchHit[]; onPick: (hit: SearchHit) => void }) {
  if (hits.length === 0) return <Empty>Nothing found for these words.</Empty>;
  return (
    <ol class="list" data-testid="hits">
      {hits.map((hit) => (
        <li key={hit.id}>
          <button type="button" class="link" onClick={() => onPick(hit)}>
            {hit.item_id}
          </button>{' '}
          <span class="badge">{hit.collection}</span> <small class="muted">{hit.snippet}</small>
        </li>
      ))}
    </ol>
  );
}

export function Items({ project }: { project: Project }) {
  const initial = hashParams();
  const [collection, setCollection] = useState(initial.get('collection') ?? '');
  const [tenant, setTenant] = useState('');
  const [search, setSearch] = useState('');
  const [text, setText] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const client = projectClient(project.id);
  const collections = useLoad(() => client.collections.list({ per_page: 100 }), [project.id]);
  const tenantNumber = /^\d+$/.test(tenant) ? Number(tenant) : undefined;
  const list = useLoad(
    () =>
      client.items.list({
        page,
        per_page: PER_PAGE,
        ...(collection ? { collection } : {}),
        ...(tenantNumber ? { tenant: tenantNumber } : {}),
        ...(search.trim() ? { item_id: search.trim() } : {}),
      }),
    [project.id, page, collection, tenantNumber, search],
  );
  // A new filter starts at its first page.
  const filtered =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setPage(1);
    };
  const words = text.trim();
  const hits = useLoad(
    () =>
      words
        ? client.search({ text: words, limit: PER_PAGE, ...(collection ? { collections: [collection] } : {}), ...(tenantNumber ? { tenant: tenantNumber } : {}) })
        : Promise.resolve([]),
    [project.id, words, collection, tenantNumber],
  );
  const pick = (hit: SearchHit) => {
    setText('');
    filtered(setSearch)(hit.item_id);
    setOpen(hit.id);
  };
  return (
    <>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label="Text">
          <input type="search" name="text" value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="words in the items" />
        </Field>
        <Field label="Item id">
          <input type="search" name="item-id" value={search} onInput={(e) => filtered(setSearch)(e.currentTarget.value)} placeholder="exact item id" />
        </Field>
        <Field label="Collection">
          <select name="collection" value={collection} onChange={(e) => filtered(setCollection)(e.currentTarget.value)}>
            <option value="">all</option>
            {(collections.value?.data ?? []).map((c) => (
              <option key={c.id} value={c.slug}>
                {c.slug}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Tenant">
          <input name="tenant" inputMode="numeric" pattern="[0-9]*" value={tenant} onInput={(e) => filtered(setTenant)(e.currentTarget.value)} />
        </Field>
      </form>
      {words ? (
        <Status state={hits}>{(found) => <Hits hits={found} onPick={pick} />}</Status>
      ) : (
        <PagedList state={list} empty="No items match." onPage={setPage}>
          {(p) => (
            <>
              <ul class="list">
                {p.data.map((item) => (
                  <li key={item.id}>
                    <button type="button" class="link" aria-expanded={open === item.id} onClick={() => setOpen(open === item.id ? null : item.id)}>
                      {item.item_id}
                    </button>{' '}
                    <span class="badge">{item.collection.slug}</span> <small class="muted">{preview(item)}</small>
                    {open === item.id ? <ItemDetail project={project} item={item} /> : null}
                  </li>
                ))}
              </ul>
            </>
          )}
        </PagedList>
      )}
    </>
  );
}
