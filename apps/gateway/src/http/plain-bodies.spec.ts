import { CreateUpsertDto, QuestionDto, SearchDto } from '@askdata/contracts';
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

  it('takes the bodies clients send most', () => {
    expect(plainBody(SearchDto, { text: 'What is BM25?', limit: 10 })).toEqual(Object.assign(new SearchDto(), { text: 'What is BM25?', limit: 10 }));
    expect(plainBody(QuestionDto, { text: 'Why?', tenant: 3, stream: true })).toBeInstanceOf(QuestionDto);
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
