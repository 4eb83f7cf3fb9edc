import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Chat, ChatMessage, Collection, createProject, Item, Page, Project, SearchHit, Upsert } from '../support/harness';
import { expectMessageOnly } from '../support/shapes';

/**
 * Tenant and project isolation as properties. Random items (seeded) go to a multi-tenant project (tenants 1, 2 and
 * 3, two collections) and a single-tenant one, all written with the same words so that every question matches
 * items everywhere; each item also carries a marker word of its own. For random callers, tenants, questions
 * (which may name other scopes' markers), filters and ids, no list, lookup, search, question, chat, follow-up or
 * feedback route returns or cites anything outside the caller's scope, and what is in scope is found.
 * FUZZ_SEED=<n> replays a run, FUZZ_RUNS=<n> changes its size.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const params = (runs = RUNS): fc.Parameters<unknown> => ({ seed: SEED, numRuns: runs });

const WORDS = ['garden', 'invoice', 'rocket', 'harbor', 'violin', 'glacier', 'lantern', 'meadow', 'copper', 'orchid'];
const COLLECTIONS = ['alpha', 'beta'];
const TENANTS = [1, 2, 3];

/** An item as written, and what the service made of it. */
interface Known {
  project: 'multi' | 'single';
  itemId: string;
  tenant: number | null;
  collection: string;
  marker: string;
  id: string;
}

interface Scope {
  project: Project;
  name: 'multi' | 'single';
  /** Tenant of the question or chat; always set in the multi-tenant project. */
  tenant: number | null;
}

interface Question {
  words: string[];
  /** Items (any project, any tenant) whose marker words the question names. */
  markers: number[];
  collections?: string[];
  filtered: boolean;
}

const itemSpec = fc.record({
  tenant: fc.constantFrom(...TENANTS),
  collection: fc.constantFrom(...COLLECTIONS),
  words: fc.shuffledSubarray(WORDS, { minLength: 3, maxLength: 5 }),
});

describe('tenant and project isolation (property tests)', () => {
  let multi: Project;
  let single: Project;
  const items: Known[] = [];
  const upserts: Record<'multi' | 'single', string[]> = { multi: [], single: [] };
  const collectionIds: Record<'multi' | 'single', string[]> = { multi: [], single: [] };
  /** Chats made by the properties: project, tenant, user, the chat and all its messages. */
  const chats: Array<{ project: 'multi' | 'single'; tenant: number | null; user: string | null; chat: string; messages: string[]; type: 'chat' | 'query' }> = [];

  const projectOf = (name: 'multi' | 'single') => (name === 'multi' ? multi : single);
  const inScope = (s: Scope) => (k: Known) => k.project === s.name && (s.name === 'single' || k.tenant === s.tenant);
  const byServiceId = (id: string) => items.find((k) => k.id === id);

  /** Sources and hits must be items of the scope; answer texts may hold no marker from outside it. */
  function expectWithin(scope: Scope, ids: string[], answers: string[], what: string): void {
    const outside = ids.filter((id) => {
      const k = byServiceId(id);
      return !k || !inScope(scope)(k);
    });
    const foreignMarkers = items
      .filter((k) => !inScope(scope)(k))
      .map((k) => k.marker)
      .filter((m) => answers.some((a) => a.includes(m)));
    expect({ what, outside, foreignMarkers }).toEqual({ what, outside: [], foreignMarkers: [] });
  }

  beforeAll(async () => {
    process.stdout.write(`\n[isolation] seed ${SEED}, ${RUNS} runs per property (FUZZ_SEED, FUZZ_RUNS to change)\n`);
    [multi, single] = await Promise.all([createProject('multi'), createProject('single')]);
    const [multiSpecs, singleSpecs] = fc.sample(fc.tuple(fc.array(itemSpec, { minLength: 24, maxLength: 24 }), fc.array(itemSpec, { minLength: 8, maxLength: 8 })), {
      seed: SEED,
      numRuns: 1,
    })[0];
    // Every tenant and collection gets items, whatever the draw.
    multiSpecs.forEach((spec, i) => {
      if (i < 6) Object.assign(spec, { tenant: TENANTS[i % 3], collection: COLLECTIONS[i % 2] });
    });
    const write = async (name: 'multi' | 'single', specs: typeof multiSpecs) => {
      const project = projectOf(name);
      for (const collection of COLLECTIONS) {
        const batch = specs
          .map((spec, i) => ({ spec, i }))
          .filter(({ spec }) => spec.collection === collection)
          .map(({ spec, i }) => {
            const marker = `mk${randomBytes(4).toString('hex')}`;
            const [a, b, c, ...rest] = spec.words;
            items.push({ project: name, itemId: `item-${i}`, tenant: spec.tenant, collection, marker, id: '' });
            return {
              id: `item-${i}`,
              tenant: spec.tenant,
              metadata: { rank: i },
              data: { title: `The ${a} ${b}`, text: `The ${a} stands by the ${b}. Every ${c} needs a ${rest.join(' and a ') || a}. The code word is ${marker}.` },
            };
          });
        if (batch.length) upserts[name].push((await project.upsertAndWait(batch, { slug: collection, metadata: { rank: { type: 'number' } } })).id);
      }
      const listed = (await project.get<Page<Item>>('/items?per_page=100')).body.data;
      for (const item of listed) {
        const known = items.find((k) => k.project === name && k.itemId === item.item_id && k.collection === item.collection.slug)!;
        known.id = item.id;
      }
      collectionIds[name] = (await project.get<Page<Collection>>('/collections')).body.data.map((c) => c.id);
    };
    await write('multi', multiSpecs);
    await write('single', singleSpecs);
    expect(items.every((k) => k.id !== '')).toBe(true);
  });

  /** A caller: the multi-tenant project with one of its tenants, or the single-tenant project with any tenant or none. */
  const scope = fc.oneof(
    { arbitrary: fc.constantFrom(...TENANTS).map((tenant) => ({ name: 'multi' as const, tenant })), weight: 3 },
    { arbitrary: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }).map((tenant) => ({ name: 'single' as const, tenant })), weight: 1 },
  );
  const scopeOf = (s: { name: 'multi' | 'single'; tenant: number | null }): Scope => ({ ...s, project: projectOf(s.name) });
  const tenantField = (s: Scope) => (s.tenant === null ? {} : { tenant: s.tenant });

  /** A question: topic words, maybe markers of any items (in scope or not), maybe collections and a filter. */
  const question = fc.record({
    words: fc.shuffledSubarray(WORDS, { minLength: 1, maxLength: 3 }),
    markers: fc.array(fc.nat(), { maxLength: 2 }),
    collections: fc.option(fc.shuffledSubarray(COLLECTIONS, { minLength: 1 }), { nil: undefined }),
    filtered: fc.boolean(),
  });
  const questionBody = (s: Scope, q: Question) => ({
    text: `Where is the ${q.words.join(' and the ')}? ${q.markers.map((n) => items[n % items.length].marker).join(' ')}`.trim(),
    ...tenantField(s),
    ...(q.collections ? { collections: q.collections } : {}),
    ...(q.filtered ? { filter: { rank: { $gte: 0 } } } : {}),
  });
  const named = (q: { markers: number[] }) => q.markers.map((n) => items[n % items.length]);

  it("search returns only items of the caller's project and tenant, and finds the ones it names", async () => {
    let hits = 0;
    await fc.assert(
      fc.asyncProperty(scope, question, async (sc, q) => {
        const s = scopeOf(sc);
        const body = questionBody(s, q);
        const r = await s.project.post<{ data: SearchHit[] }>('/search', { ...body, limit: 100 });
        expect(r.status).toBe(200);
        hits += r.body.data.length;
        expectWithin(
          s,
          r.body.data.map((h) => h.id),
          r.body.data.map((h) => h.snippet),
          'search',
        );
        if (s.name === 'multi') expect(r.body.data.every((h) => h.tenant === s.tenant)).toBe(true);
        if (q.collections) expect(r.body.data.every((h) => q.collections!.includes(h.collection))).toBe(true);
        // What the question names and the caller may see is found.
        for (const k of named(q)
          .filter(inScope(s))
          .filter((k) => !q.collections || q.collections.includes(k.collection))) {
          expect(r.body.data.map((h) => h.id)).toContain(k.id);
        }
      }),
      params(),
    );
    expect(hits).toBeGreaterThan(RUNS);
  });

  it("answers to /query cite only items of the caller's scope and quote nothing from outside it", async () => {
    let cited = 0;
    await fc.assert(
      fc.asyncProperty(scope, question, fc.constantFrom('user-a', 'user-b'), async (sc, q, user) => {
        const s = scopeOf(sc);
        const r = await s.project.post<{ data: ChatMessage }>('/query', { ...questionBody(s, q), identifier: { id: user } });
        expect(r.status).toBe(201);
        const m = r.body.data;
        if (m.sources?.length) cited++;
        expectWithin(
          s,
          (m.sources ?? []).map((x) => x.id),
          [m.text, m.text_html, ...(m.sources ?? []).map((x) => x.snippet)],
          'query',
        );
        chats.push({ project: s.name, tenant: s.tenant, user, chat: m.chat_id, messages: [m.id], type: 'query' });
      }),
      params(),
    );
    // Most questions match something in scope: the answers that cite nothing cannot be all there is.
    expect(cited).toBeGreaterThan(RUNS / 2);
  });

  it("chats and their follow-ups stay in the chat's tenant, whatever the follow-up asks or claims", async () => {
    let cited = 0;
    const followUp = fc.record({
      words: fc.shuffledSubarray(WORDS, { minLength: 1, maxLength: 2 }),
      markers: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
      claim: fc.option(fc.constantFrom(...TENANTS), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(scope, question, followUp, fc.constantFrom('user-a', 'user-b'), async (sc, q, f, user) => {
        const s = scopeOf(sc);
        const created = await s.project.post<{ data: Chat }>('/chats', { ...questionBody(s, q), identifier: { id: user } });
        expect(created.status).toBe(201);
        const chat = created.body.data;
        expect(chat.tenant).toBe(s.tenant);
        const text = `And the ${f.words.join(' and the ')}? ${named(f)
          .map((k) => k.marker)
          .join(' ')}`;
        // A tenant in the follow-up's body is not part of its contract: it must not switch the chat's tenant.
        const next = await s.project.post<{ data: ChatMessage }>(`/chats/${chat.id}/messages`, { text, ...(f.claim ? { tenant: f.claim } : {}) });
        expect([201, 422]).toContain(next.status);
        const stored = (await s.project.get<{ data: Chat }>(`/chats/${chat.id}`)).body.data;
        expect(stored.tenant).toBe(s.tenant);
        const answers = stored.messages.filter((m) => m.role === 'assistant');
        cited += answers.filter((m) => m.sources?.length).length;
        expectWithin(
          s,
          answers.flatMap((m) => (m.sources ?? []).map((x) => x.id)),
          answers.flatMap((m) => [m.text, m.text_html]),
          'chat',
        );
        chats.push({ project: s.name, tenant: s.tenant, user, chat: chat.id, messages: stored.messages.map((m) => m.id), type: 'chat' });
      }),
      params(),
    );
    expect(cited).toBeGreaterThan(RUNS / 2);
  });

  it("lists hold exactly the caller's project: items by tenant, collection and client id, collections, upserts", async () => {
    const filters = fc.record({
      tenant: fc.option(fc.constantFrom(...TENANTS), { nil: undefined }),
      collection: fc.option(fc.constantFrom(...COLLECTIONS), { nil: undefined }),
      itemId: fc.option(
        fc.nat({ max: 30 }).map((n) => `item-${n}`),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'multi' | 'single'>('multi', 'single'), filters, async (name, f) => {
        const p = projectOf(name);
        const query = new URLSearchParams({ per_page: '100' });
        if (f.tenant) query.set('tenant', String(f.tenant));
        if (f.collection) query.set('collection', f.collection);
        if (f.itemId) query.set('item_id', f.itemId);
        const r = await p.get<Page<Item>>(`/items?${query.toString()}`);
        expect(r.status).toBe(200);
        const expected = items.filter(
          (k) => k.project === name && (!f.tenant || k.tenant === f.tenant) && (!f.collection || k.collection === f.collection) && (!f.itemId || k.itemId === f.itemId),
        );
        expect(r.body.data.map((i) => i.id).sort()).toEqual(expected.map((k) => k.id).sort());
        expect(r.body.meta.total).toBe(expected.length);
        expect(r.body.data.flatMap((i) => i.upserts.map((u) => u.id)).every((id) => upserts[name].includes(id))).toBe(true);
        const collections = (await p.get<Page<Collection>>('/collections?per_page=100')).body.data;
        expect(collections.map((c) => c.slug).sort()).toEqual([...COLLECTIONS].sort());
        for (const c of collections) expect(c.items_count).toBe(items.filter((k) => k.project === name && k.collection === c.slug).length);
        expect((await p.get<Page<Upsert>>('/upserts?per_page=100')).body.data.map((u) => u.id).sort()).toEqual([...upserts[name]].sort());
      }),
      params(),
    );
  });

  it("chat lists hold only the caller's chats, by tenant, user and type", async () => {
    const filters = fc.record({
      tenant: fc.option(fc.constantFrom(...TENANTS), { nil: undefined }),
      user: fc.option(fc.constantFrom('user-a', 'user-b'), { nil: undefined }),
      type: fc.constantFrom<'chat' | 'query' | 'all'>('chat', 'query', 'all'),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'multi' | 'single'>('multi', 'single'), filters, async (name, f) => {
        const query = new URLSearchParams({ per_page: '100', type: f.type });
        if (f.tenant) query.set('tenant', String(f.tenant));
        if (f.user) query.set('user', f.user);
        const r = await projectOf(name).get<Page<Chat>>(`/chats?${query.toString()}`);
        expect(r.status).toBe(200);
        const expected = chats.filter(
          (c) => c.project === name && (f.type === 'all' || c.type === f.type) && (!f.tenant || c.tenant === f.tenant) && (!f.user || c.user === f.user),
        );
        expect(r.body.meta.total).toBe(expected.length);
        const known = new Set(expected.map((c) => c.chat));
        expect(r.body.data.filter((c) => !known.has(c.id)).map((c) => c.id)).toEqual([]);
        for (const c of r.body.data) if (f.tenant) expect(c.tenant).toBe(f.tenant);
      }),
      params(),
    );
  });

  it('any id of the other project is 404 on every lookup, and 200 in its own', async () => {
    const target = fc.record({
      owner: fc.constantFrom<'multi' | 'single'>('multi', 'single'),
      caller: fc.constantFrom<'multi' | 'single'>('multi', 'single'),
      kind: fc.constantFrom('item', 'collection', 'upsert', 'chat', 'message'),
      n: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(target, async ({ owner, caller, kind, n }) => {
        const ownItems = items.filter((k) => k.project === owner);
        const ownChats = chats.filter((c) => c.project === owner);
        const chat = ownChats[n % ownChats.length];
        const path = {
          item: () => `/items/${ownItems[n % ownItems.length].id}`,
          collection: () => `/collections/${collectionIds[owner][n % collectionIds[owner].length]}`,
          upsert: () => `/upserts/${upserts[owner][n % upserts[owner].length]}`,
          chat: () => `/chats/${chat.chat}`,
          message: () => `/chats/${chat.chat}/messages/${chat.messages[n % chat.messages.length]}`,
        }[kind]();
        const r = await projectOf(caller).get(path);
        const expected = owner === caller ? 200 : 404;
        expect({ path, status: r.status }).toEqual({ path, status: expected });
        if (r.status === 404) expectMessageOnly(r.body);
      }),
      params(RUNS * 2),
    );
  });

  it("feedback reaches only the caller's own chats and messages; the other project's stay untouched", async () => {
    const target = fc.record({
      owner: fc.constantFrom<'multi' | 'single'>('multi', 'single'),
      caller: fc.constantFrom<'multi' | 'single'>('multi', 'single'),
      onMessage: fc.boolean(),
      n: fc.nat(),
      feedback: fc.constantFrom('positive', 'negative', 'wrong tenant?'),
    });
    await fc.assert(
      fc.asyncProperty(target, async ({ owner, caller, onMessage, n, feedback }) => {
        const ownChats = chats.filter((c) => c.project === owner);
        const chat = ownChats[n % ownChats.length];
        const before = (await projectOf(owner).get<{ data: Chat }>(`/chats/${chat.chat}`)).body.data;
        const message = chat.messages[n % chat.messages.length];
        const path = onMessage ? `/chats/${chat.chat}/messages/${message}/feedback` : `/chats/${chat.chat}/feedback`;
        const r = await projectOf(caller).post(path, { feedback });
        const after = (await projectOf(owner).get<{ data: Chat }>(`/chats/${chat.chat}`)).body.data;
        if (owner === caller) {
          expect(r.status).toBe(201);
          if (onMessage) expect(after.messages.find((m) => m.id === message)?.feedback).toBe(feedback);
          else expect(after.feedback).toBe(feedback);
        } else {
          expect({ path, status: r.status }).toEqual({ path, status: 404 });
          expectMessageOnly(r.body);
          expect(after).toEqual(before);
        }
      }),
      params(),
    );
  });
});
