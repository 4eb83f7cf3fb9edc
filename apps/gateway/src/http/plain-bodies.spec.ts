import { CollectionInputDto, CreateUpsertDto, QuestionDto, SearchDto, UpsertItemDto } from '@askdata/contracts';
import { validateDto } from '@askdata/common';
import { plainBody } from './plain-bodies';

/** Field values of every kind, valid and not, for the fields the fast path knows and some it does not. */
const VALUES: Record<string, unknown[]> = {
  text: ['What is BM25?', '  x ', '', '   ', '\n\t', 42, null, true, ['a'], { a: 1 }, 'bad \u0000 text', 'lone \ud800 half', 'pair \ud83d\ude00 ok'],
  limit: [1, 10, 100, 1000, 0, -1, 2.5, '10', null, true, 1e300, Number.MAX_SAFE_INTEGER],
  tenant: [1, 7, 2_147_483_647, 2_147_483_648, 0, -3, 1.5, '7', null, false],
  stream: [true, false, 'true', 0, null],
  language: ['en', 'xx-not-a-code'],
  collections: [['docs'], []],
  filter: [{ kind: 'faq' }],
  colections: [['docs']],
  constructor: [1],
};

/** Bodies of one to three fields drawn from VALUES, with text, and some without it. */
function* bodies(): Generator<Record<string, unknown>> {
  const keys = Object.keys(VALUES);
  for (const text of VALUES.text) {
    yield { text };
    for (const a of keys.filter((k) => k !== 'text')) {
      for (const va of VALUES[a]) {
        yield { text, [a]: va };
        yield { [a]: va };
        for (const b of keys.filter((k) => k !== 'text' && k > a)) for (const vb of VALUES[b]) yield { text, [a]: va, [b]: vb };
      }
    }
  }
}

describe('plainBody', () => {
  it.each([
    ['SearchDto', SearchDto],
    ['QuestionDto', QuestionDto],
  ])('takes a %s body only as its validation would, and takes the plain ones', (_name, cls) => {
    let taken = 0;
    let checked = 0;
    for (const body of bodies()) {
      const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
      const fast = plainBody(cls, copy);
      const validated = validateDto(cls as new () => object, JSON.parse(JSON.stringify(body)));
      checked++;
      if (fast === null) continue;
      taken++;
      expect({ body, errors: validated.errors }).toEqual({ body, errors: null });
      expect(fast).toBeInstanceOf(cls);
      expect(fast).toEqual(validated.value);
      expect(Object.keys(fast).sort()).toEqual(Object.keys(validated.value as object).sort());
    }
    expect(checked).toBeGreaterThan(1000);
    // The common bodies go the fast way: text alone, with a limit (searches), a tenant or a stream flag (questions).
    expect(taken).toBeGreaterThan(20);
  });

  /** An upsert's item's values of every kind, valid and not, for the fields the fast path knows and some it does not. */
  const ITEM_VALUES: Record<string, unknown[]> = {
    id: ['doc-1', 42, '', '   ', '😀'.repeat(255), 'x'.repeat(256), 1.5, 2 ** 53, { a: 1 }, 'nul \u0000'],
    data: [{ text: 'Hello' }, {}, [], null, { constructor: 'kept', toString: 1 }, { bad: 'lone \ud800' }],
    metadata: [{ kind: 'faq' }, {}, null, [], 'faq', { n: 1e300 }, { constructor: 1 }],
    tenant: [1, 2_147_483_648, 0, '3', null, 1.5],
    url: ['https://example.com/a', 'not a url'],
    language: ['en', 'xx-not-a-code'],
    colour: ['red'],
  };

  /** Items of `id` and `data` with up to two more fields drawn from ITEM_VALUES, and some without them. */
  function* items(): Generator<Record<string, unknown>> {
    const keys = Object.keys(ITEM_VALUES).filter((k) => k !== 'id' && k !== 'data');
    for (const id of ITEM_VALUES.id) {
      for (const data of ITEM_VALUES.data) {
        yield { id, data };
        for (const a of keys) {
          for (const va of ITEM_VALUES[a]) {
            yield { id, data, [a]: va };
            for (const b of keys.filter((k) => k > a)) for (const vb of ITEM_VALUES[b]) yield { id, data, [a]: va, [b]: vb };
          }
        }
      }
    }
    yield { data: { text: 'x' } };
    yield { id: 'a' };
  }

  it('takes an upsert body only as its validation would, and takes the plain ones', () => {
    const collections: unknown[] = [undefined, { slug: 'docs' }, { slug: 'Not A Slug' }, { slug: 'docs', name: 'Docs' }, { slug: 'docs', metadata: {} }, 'docs', null, {}];
    const good = { id: 'doc-1', data: { text: 'Hello' } };
    const upserts: unknown[] = [{ items: [] }, { items: good }, { items: [good], extra: 1 }, { items: [good, 'x'] }, [{ items: [good] }], { collection: { slug: 'docs' } }];
    for (const item of items()) upserts.push({ items: [good, item] });
    for (const collection of collections) upserts.push({ items: [good, { ...good, id: 7, metadata: { n: 1 }, tenant: 3 }], ...(collection === undefined ? {} : { collection }) });
    let taken = 0;
    for (const body of upserts) {
      const fast = plainBody(CreateUpsertDto, JSON.parse(JSON.stringify(body)));
      const validated = validateDto(CreateUpsertDto, JSON.parse(JSON.stringify(body)));
      if (fast === null) continue;
      taken++;
      expect({ body, errors: validated.errors }).toEqual({ body, errors: null });
      expect(fast).toBeInstanceOf(CreateUpsertDto);
      expect(fast).toEqual(validated.value);
      const dto = fast as CreateUpsertDto;
      for (const item of dto.items) expect(item).toBeInstanceOf(UpsertItemDto);
      if (dto.collection) expect(dto.collection).toBeInstanceOf(CollectionInputDto);
    }
    expect(upserts.length).toBeGreaterThan(1000);
    // Items of an id, data, metadata and a tenant, in a collection named by its slug, go the fast way.
    expect(taken).toBeGreaterThan(50);
  });

  it('takes the bodies clients send most', () => {
    expect(plainBody(SearchDto, { text: 'What is BM25?', limit: 10 })).toEqual(Object.assign(new SearchDto(), { text: 'What is BM25?', limit: 10 }));
    expect(plainBody(QuestionDto, { text: 'Why?', tenant: 3, stream: true })).toBeInstanceOf(QuestionDto);
    expect(plainBody(CreateUpsertDto, { collection: { slug: 'faq' }, items: [{ id: 'a', data: { q: 'Why?' }, metadata: { kind: 'faq' } }] })).toBeInstanceOf(CreateUpsertDto);
  });

  it('leaves other classes, arrays, non-objects and objects of other prototypes to validation', () => {
    expect(plainBody(CreateUpsertDto, { text: 'x' })).toBeNull();
    expect(plainBody(SearchDto, [{ text: 'x' }])).toBeNull();
    expect(plainBody(SearchDto, 'text')).toBeNull();
    expect(plainBody(SearchDto, null)).toBeNull();
    expect(plainBody(SearchDto, Object.assign(Object.create({ limit: 5 }) as object, { text: 'x' }))).toBeNull();
    expect(plainBody(SearchDto, JSON.parse('{"text":"x","__proto__":{"limit":5}}'))).toBeNull();
  });
});
