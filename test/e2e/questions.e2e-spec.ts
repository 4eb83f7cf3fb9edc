import {
  Chat,
  ChatMessage,
  citations,
  Collection,
  createProject,
  createProjectOn,
  eventually,
  Item,
  itIn,
  Page,
  Project,
  SearchHit,
  sharedService,
  startDedicatedGateway,
} from '../support/harness';
import { arrayOf, assistantMessageSpec, expectShape, expectValidation, object, searchHitSpec } from '../support/shapes';

const FAQ = [
  {
    id: 'hours',
    url: 'https://help.example/hours',
    metadata: { kind: 'faq', year: 2024 },
    data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm on weekdays. On Saturdays the shop opens at 10am.' },
  },
  {
    id: 'returns',
    metadata: { kind: 'policy', year: 2023 },
    data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt. Refunds take five business days.' },
  },
  {
    id: 'shipping',
    metadata: { kind: 'policy', year: 2024 },
    data: { title: 'Shipping', text: 'Orders ship within two days. Express delivery costs 12 euros.' },
  },
];
const STAFF = [{ id: 'parking', data: { title: 'Staff parking', text: 'Employees park in the north garage, on level minus two.' } }];
const HOSTILE = [
  {
    id: 'vault',
    data: {
      title: 'Vault <script>alert("t")</script>',
      text: 'The vault code is 4242. <script>alert("x")</script> <img src=x onerror="alert(1)"> <a href="javascript:alert(2)">open</a> [phish](javascript:alert(3)) <b onclick="alert(4)">bold</b>',
    },
  },
];

/** Checks the answer invariants every answer must hold: citations point into sources, sources are the project's items. */
async function expectGrounded(p: Project, m: ChatMessage): Promise<void> {
  expectShape(m, assistantMessageSpec, 'message');
  const sources = m.sources ?? [];
  const indexes = sources.map((s) => s.index);
  expect(new Set(indexes).size).toBe(indexes.length);
  for (const n of citations(m.text)) expect(indexes).toContain(n);
  for (const s of sources) {
    const item = await p.get<{ data: Item }>(`/items/${s.id}`);
    expect({ source: s.index, status: item.status }).toEqual({ source: s.index, status: 200 });
    expect({ item_id: item.body.data.item_id, collection: item.body.data.collection.slug }).toEqual({ item_id: s.item_id, collection: s.collection });
  }
}

const itemIds = (hits: SearchHit[]) => hits.map((h) => h.item_id);

describe('questions', () => {
  let p: Project;
  beforeAll(async () => {
    p = await createProject();
    await p.upsertAndWait(FAQ, { slug: 'faq', metadata: { kind: { type: 'enum', options: ['faq', 'policy'] }, year: { type: 'number' } } });
    await p.upsertAndWait(STAFF, { slug: 'staff' });
    await p.upsertAndWait(HOSTILE, { slug: 'notes' });
  });

  describe('POST /v1/query', () => {
    it('answers 201 with one assistant message, grounded in cited sources', async () => {
      const r = await p.post<{ data: ChatMessage }>('/query', { text: 'How many days do I have to return an item?' });
      expect(r.status).toBe(201);
      const m = r.body.data;
      await expectGrounded(p, m);
      expect(m).toMatchObject({ role: 'assistant', feedback: null, user: null });
      expect(m.text).toContain('30 days');
      expect(citations(m.text).length).toBeGreaterThan(0);
      const cited = (m.sources ?? []).filter((s) => citations(m.text).includes(s.index));
      expect(cited.map((s) => s.item_id)).toContain('returns');
      expect(m.sources?.find((s) => s.item_id === 'returns')).toMatchObject({ collection: 'faq', url: null });
      expect(m.text_html).toMatch(/<p>|<ul>|<ol>/);
      expect(m.text_html).toContain('30 days');
    });

    it('gives sources their item url and a snippet', async () => {
      const m = (await p.post<{ data: ChatMessage }>('/query', { text: 'When does the shop open on Saturdays?' })).body.data;
      await expectGrounded(p, m);
      expect(m.text).toContain('10am');
      const s = m.sources?.find((x) => x.item_id === 'hours');
      expect(s).toMatchObject({ url: 'https://help.example/hours', collection: 'faq' });
      expect(s?.snippet).toMatch(/Saturday|10am/);
    });

    it('keeps the one-off question in a chat of type "query" with the question and the answer', async () => {
      const m = (await p.post<{ data: ChatMessage }>('/query', { text: 'How long does shipping take?', identifier: { id: 'q-user', name: 'Quinn' } })).body.data;
      const chat = await p.get<{ data: Chat }>(`/chats/${m.chat_id}`);
      expect(chat.status).toBe(200);
      expect(chat.body.data).toMatchObject({ id: m.chat_id, type: 'query' });
      expect(chat.body.data.messages.map((x) => x.role)).toEqual(['user', 'assistant']);
      expect(chat.body.data.messages[0]).toMatchObject({ text: 'How long does shipping take?', identifier: 'q-user', user: { id: 'q-user', name: 'Quinn' } });
      expect(chat.body.data.messages[1]).toMatchObject({ id: m.id, text: m.text });
      const one = await p.get(`/chats/${m.chat_id}/messages/${m.id}`);
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual(m);
    });

    it('says plainly when the data does not contain the answer, citing nothing', async () => {
      for (const text of ['Who won the football world cup in 1998?', 'What is the boiling point of mercury?']) {
        const r = await p.post<{ data: ChatMessage }>('/query', { text });
        expect(r.status).toBe(201);
        await expectGrounded(p, r.body.data);
        expect({ text, citations: citations(r.body.data.text), sources: r.body.data.sources }).toEqual({ text, citations: [], sources: [] });
        expect(r.body.data.text).toMatch(/\b(no|not|cannot|can't|couldn't|don't|doesn't|unable)\b/i);
      }
    });

    it('restricts to the given collections', async () => {
      const all = (await p.post<{ data: ChatMessage }>('/query', { text: 'Where do employees park?' })).body.data;
      await expectGrounded(p, all);
      expect(all.sources?.map((s) => s.item_id)).toContain('parking');
      expect(all.text).toContain('north garage');
      const faqOnly = (await p.post<{ data: ChatMessage }>('/query', { text: 'Where do employees park?', collections: ['faq'] })).body.data;
      await expectGrounded(p, faqOnly);
      expect(faqOnly.sources?.every((s) => s.collection === 'faq')).toBe(true);
      expect(faqOnly.text).not.toContain('north garage');
    });

    it('applies a metadata filter', async () => {
      const r = (await p.post<{ data: ChatMessage }>('/query', { text: 'When does the shop open on Saturdays?', filter: { kind: 'policy' } })).body.data;
      await expectGrounded(p, r);
      expect(r.sources?.map((s) => s.item_id)).not.toContain('hours');
      expect(r.text).not.toContain('10am');
    });

    it('renders text_html without scripts, event handlers or javascript: URLs, even when an item holds them', async () => {
      const r = await p.post<{ data: ChatMessage }>('/query', { text: 'What is the vault code?' });
      expect(r.status).toBe(201);
      const m = r.body.data;
      await expectGrounded(p, m);
      expect(m.sources?.map((s) => s.item_id)).toContain('vault');
      expect(m.text).toContain('4242');
      expect(m.text_html).toContain('4242');
      expect(m.text_html).not.toMatch(/<script/i);
      // Markup of the item may appear escaped as text (&lt;script&gt;), never as live elements or attributes.
      expect(m.text_html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
      expect(m.text_html).not.toMatch(/<[a-z][^>]*\s(href|src)\s*=\s*["']?\s*javascript:/i);
      // Snippets of sources are text, never markup that a client could render.
      for (const s of m.sources ?? []) expect(typeof s.snippet).toBe('string');
    });

    it.each<[string, Record<string, unknown>, string[]]>([
      ['no text', {}, ['text']],
      ['empty text', { text: '' }, ['text']],
      ['text over 4000 characters', { text: 'x'.repeat(4001) }, ['text']],
      ['text not a string', { text: 42 }, ['text']],
      ['collections not an array', { text: 'hours', collections: 'faq' }, ['collections']],
      ['an unknown collection slug', { text: 'hours', collections: ['nope'] }, ['collections.0']],
      ['an unknown second slug', { text: 'hours', collections: ['faq', 'nope'] }, ['collections.1']],
      ['a slug that is not a string', { text: 'hours', collections: [7] }, ['collections.0']],
      ['an identifier without id', { text: 'hours', identifier: { name: 'Ada' } }, ['identifier.id']],
      ['tenant 0', { text: 'hours', tenant: 0 }, ['tenant']],
      ['a tenant that is not an integer', { text: 'hours', tenant: 'two' }, ['tenant']],
    ])('POST /query and /chats: %s is 422', async (_name, body, paths) => {
      expectValidation(await p.post('/query', body), paths);
      expectValidation(await p.post('/chats', body), paths);
    });

    it('takes a question of exactly 4000 characters', async () => {
      const text = 'When does the shop open? '.repeat(200).slice(0, 4000);
      expect(text).toHaveLength(4000);
      expect((await p.post('/query', { text })).status).toBe(201);
    });

    it('counts characters, not UTF-16 units: 4000 emoji are a question, 4001 are too many', async () => {
      const emoji = '\u{1F600}';
      expect((await p.post('/query', { text: emoji.repeat(4000) })).status).toBe(201);
      expectValidation(await p.post('/query', { text: emoji.repeat(4001) }), ['text']);
    });

    it('refuses a filter on an undeclared field, an unknown operator and a malformed filter with 422', async () => {
      for (const route of ['/query', '/search']) {
        for (const filter of [{ colour: 'red' }, { year: { $regex: '.*' } }, { year: { $gt: 'recent' } }, { kind: { $in: 'faq' } }, 'kind=faq', [{ kind: 'faq' }]]) {
          const r = await p.post(route, { text: 'opening hours', filter });
          expect({ route, filter, status: r.status }).toEqual({ route, filter, status: 422 });
          expect(Object.keys(r.body.errors ?? {}).length).toBeGreaterThan(0);
          expect(Object.keys(r.body.errors).every((k) => k === 'filter' || k.startsWith('filter.'))).toBe(true);
        }
      }
    });
  });

  describe('POST /v1/search', () => {
    it('answers 200 with ranked hits, best first, one per item, every field present', async () => {
      const r = await p.post<{ data: SearchHit[] }>('/search', { text: 'Express delivery costs 12 euros' });
      expect(r.status).toBe(200);
      expectShape(r.body, { data: arrayOf(object(searchHitSpec)) });
      expect(r.body.data[0]).toMatchObject({ item_id: 'shipping', collection: 'faq', tenant: null, url: null, metadata: { kind: 'policy', year: 2024 } });
      expect(r.body.data[0].snippet).toMatch(/Express/);
      const scores = r.body.data.map((h) => h.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(new Set(itemIds(r.body.data)).size).toBe(r.body.data.length);
      const item = await p.get<{ data: Item }>(`/items/${r.body.data[0].id}`);
      expect(item.body.data.item_id).toBe('shipping');
    });

    it('ranks the item that matches exactly first', async () => {
      for (const [text, expected] of [
        ['Staff parking north garage', 'parking'],
        ['Opening hours', 'hours'],
        ['Returns within 30 days with the receipt', 'returns'],
      ]) {
        const r = await p.post<{ data: SearchHit[] }>('/search', { text });
        expect({ text, first: r.body.data[0]?.item_id }).toEqual({ text, first: expected });
      }
    });

    it('respects collections', async () => {
      const staff = await p.post<{ data: SearchHit[] }>('/search', { text: 'employees park garage shop open', collections: ['staff'] });
      expect(itemIds(staff.body.data)).toEqual(['parking']);
      const faq = await p.post<{ data: SearchHit[] }>('/search', { text: 'employees park garage', collections: ['faq'] });
      expect(faq.body.data.every((h) => h.collection === 'faq')).toBe(true);
      expectValidation(await p.post('/search', { text: 'park', collections: ['staff', 'missing'] }), ['collections.1']);
    });

    it('refuses an empty collections list with 422 on every question route, rather than searching nothing', async () => {
      const message = 'The collections field must name at least one collection slug (omit it to search all collections).';
      for (const route of ['/search', '/query', '/chats']) {
        const r = await p.post<{ errors: Record<string, string[]> }>(route, { text: 'park', collections: [] });
        expectValidation(r, ['collections']);
        expect({ route, errors: r.body.errors }).toEqual({ route, errors: { collections: [message] } });
      }
      const doc = (await fetch(`${p.baseUrl}/v1/openapi.json`).then((r) => r.json())) as { components: { schemas: Record<string, any> } };
      for (const schema of ['QuestionDto', 'SearchDto']) expect(doc.components.schemas[schema].properties.collections).toMatchObject({ type: 'array', minItems: 1 });
    });

    it('respects metadata filters: equality, $in, $ne, $gt, $gte, $lt, $lte', async () => {
      const text = 'shop open weekdays returned receipt orders ship delivery';
      const ids = async (filter: unknown) => itemIds((await p.post<{ data: SearchHit[] }>('/search', { text, filter, collections: ['faq'] })).body.data).sort();
      expect(await ids(undefined)).toEqual(['hours', 'returns', 'shipping']);
      expect(await ids({ kind: 'policy' })).toEqual(['returns', 'shipping']);
      expect(await ids({ kind: { $in: ['faq'] } })).toEqual(['hours']);
      expect(await ids({ kind: { $ne: 'faq' } })).toEqual(['returns', 'shipping']);
      expect(await ids({ year: { $gt: 2023 } })).toEqual(['hours', 'shipping']);
      expect(await ids({ year: { $gte: 2023 } })).toEqual(['hours', 'returns', 'shipping']);
      expect(await ids({ year: { $lt: 2024 } })).toEqual(['returns']);
      expect(await ids({ year: { $lte: 2022 } })).toEqual([]);
      expect(await ids({ kind: 'policy', year: 2024 })).toEqual(['shipping']);
    });

    it('filters on a field as soon as an upsert brings it, and refuses a collection once it is deleted', async () => {
      const w = await createProject();
      await w.upsertAndWait([{ id: 'a1', data: { text: 'Lanterns glow in the harbour.' } }], { slug: 'lights' });
      const search = (body: object) => w.post<{ data: SearchHit[] }>('/search', { text: 'lanterns harbour', ...body });
      // Each asked twice: the second is answered from whatever the first left behind.
      for (let i = 0; i < 2; i++) {
        expectValidation(await search({ filter: { shade: 'amber' } }), ['filter.shade']);
        expect(itemIds((await search({ collections: ['lights'] })).body.data)).toEqual(['a1']);
      }
      await w.upsertAndWait([{ id: 'a2', data: { text: 'Amber lanterns in the harbour.' }, metadata: { shade: 'amber' } }], { slug: 'lights' });
      for (let i = 0; i < 2; i++) {
        expect(itemIds((await search({ filter: { shade: 'amber' }, collections: ['lights'] })).body.data)).toEqual(['a2']);
        expect(itemIds((await search({ filter: { shade: 'amber' } })).body.data)).toEqual(['a2']);
      }
      const lights = (await w.get<Page<Collection>>('/collections?slug=lights')).body.data[0];
      await w.deleteAndWait(`/collections/${lights.id}`);
      expectValidation(await search({ collections: ['lights'] }), ['collections.0']);
      expectValidation(await search({ filter: { shade: 'amber' } }), ['filter.shade']);
    });

    it('returns at most limit hits (default 10); limit must be 1..100', async () => {
      const w = await createProject();
      await w.upsertAndWait(Array.from({ length: 12 }, (_, i) => ({ id: `w${i}`, data: { text: `widget model ${i} is a widget` } })));
      expect((await w.post<{ data: SearchHit[] }>('/search', { text: 'widget' })).body.data).toHaveLength(10);
      expect((await w.post<{ data: SearchHit[] }>('/search', { text: 'widget', limit: 3 })).body.data).toHaveLength(3);
      expect((await w.post<{ data: SearchHit[] }>('/search', { text: 'widget', limit: 100 })).body.data).toHaveLength(12);
      expectValidation(await w.post('/search', { text: 'widget', limit: 0 }), ['limit']);
      expectValidation(await w.post('/search', { text: 'widget', limit: 101 }), ['limit']);
      expectValidation(await w.post('/search', { text: 'widget', limit: 2.5 }), ['limit']);
      expectValidation(await w.post('/search', {}), ['text']);
    });
  });

  it('the list of queries grows with each question (GET /chats?type=query)', async () => {
    const before = (await p.get<Page<Chat>>('/chats?type=query')).body.meta.total;
    await p.post('/query', { text: 'Refunds?' });
    expect((await p.get<Page<Chat>>('/chats?type=query')).body.meta.total).toBe(before + 1);
  });
});

describe('index maintenance in the embedded database', () => {
  // Distributed mode's retrieval runs elsewhere; test/integration/index-vacuum.int-spec.ts covers it on PostgreSQL.
  itIn('standalone')(
    'keeps the index analysed as items are upserted, vacuums it once writes pause, and search goes on finding them',
    async () => {
      const service = await startDedicatedGateway(sharedService(), { INDEX_VACUUM_ROWS: '300' });
      try {
        const p = await createProjectOn(service);
        await p.upsertAndWait(
          Array.from({ length: 60 }, (_, i) => ({
            id: `log-${i}`,
            data: { title: `Log ${i}`, text: `Lighthouse keeper number ${i} logs the weather, tides, ships and storms of harbour ${i % 7}.` },
          })),
        );
        // Runs of the index maintenance with these labels (kind: vacuum or analyze; outcome: done or failed).
        const runs = async (labels: string[]) => {
          const text = await (await fetch(`${service.adminUrl}/metrics`)).text();
          let n = 0;
          for (const [, set, count] of text.matchAll(/^askdata_index_vacuum_duration_seconds_count\{([^}]*)\} (\d+)/gm)) {
            if (labels.every((l) => set.split(',').includes(l))) n += Number(count);
          }
          return n;
        };
        // Once the writes pause, the tables are vacuumed (the load itself only had them analysed).
        expect(await eventually('an index vacuum', async () => ((await runs(['kind="vacuum"', 'outcome="done"'])) > 0 ? true : undefined), 10_000)).toBe(true);
        expect(await runs(['outcome="failed"'])).toBe(0);
        const hits = await p.post<{ data: SearchHit[] }>('/search', { text: 'lighthouse keeper 42 harbour', limit: 3 });
        expect(hits.body.data[0].item_id).toBe('log-42');
      } finally {
        await service.stop();
      }
    },
    120_000,
  );
});
