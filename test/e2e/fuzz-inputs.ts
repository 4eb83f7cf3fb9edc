/**
 * Hostile inputs for the fuzz suite (fast-check arbitraries): strings and values of every awkward kind, malformed
 * JSON texts, path segments and query strings. Everything here is data; the properties live in fuzz.e2e-spec.ts.
 */
import fc from 'fast-check';

/** Strings that have broken services before: control characters, broken UTF-16, RTL, emoji, injections. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  'end\ud83d',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שלום',
  '😀👍🏽👩‍👩‍👧‍👦',
  '\u200b\u200d\ufeff',
  'e\u0301\u0301\u0301',
  '\u0085\u2028\u2029',
  '\u001b[31mred',
  'İı',
  'ß'.repeat(50),
  "' OR '1'='1",
  "1'; DROP TABLE catalog.items; --",
  '" OR ""="',
  '1 UNION SELECT * FROM gateway.api_keys',
  '$1',
  '%s%n%x',
  '../../../etc/passwd',
  '..\\..\\windows',
  '%2e%2e%2f',
  '/admin/projects',
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '<%= 7*7 %>',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  '00001',
  '-1',
  '2147483648',
  '9007199254740993',
  'true',
  '[]',
  '{}',
  'x'.repeat(256),
  'é'.repeat(4001),
  'y'.repeat(70_000),
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 1 },
  // Lone surrogates and NULs inside otherwise ordinary text.
  { arbitrary: fc.tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\ud800', '\udc00'), fc.string({ maxLength: 10 })).map((p) => p.join('')), weight: 1 },
);

/** Objects or arrays nested `depth` levels (up to far beyond the 32 the API takes). */
export const deeplyNested: fc.Arbitrary<unknown> = fc.tuple(fc.integer({ min: 20, max: 1000 }), fc.boolean(), nastyString).map(([depth, arrays, leaf]) => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { n: v };
  return v;
});

const nastyNumber = fc.oneof(
  fc.constantFrom(0, -1, 1.5, -0, 2 ** 31, 2 ** 31 - 1, 2 ** 53, 1e308, -1e308, Number.MIN_VALUE, 4001, 101, 10_000_001),
  fc.integer(),
  fc.double(), // NaN and infinities are sent as null by JSON
);

/** Any JSON value, hostile in type, size, depth and content. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: nastyString, weight: 4 },
  { arbitrary: nastyNumber, weight: 2 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.dictionary(nastyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), weight: 1 },
  { arbitrary: fc.array(nastyString, { maxLength: 4 }), weight: 1 },
  { arbitrary: deeplyNested, weight: 1 },
);

/** `value` most of the time, otherwise anything at all. */
export const mostly = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: value, weight: 3 }, { arbitrary: nastyValue, weight: 2 });

/** An object with some of these fields (each maybe hostile), sometimes with extra hostile keys. */
export function someOf(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.record(fields, { requiredKeys: [] }), fc.dictionary(nastyString, nastyValue, { maxKeys: 2 }), fc.boolean())
    .map(([known, extra, withExtra]) => (withExtra ? { ...extra, ...known } : known));
}

/** `valid` with one field replaced by anything, or dropped. */
export function mutated(valid: fc.Arbitrary<Record<string, unknown>>, keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(valid, fc.constantFrom(...keys), nastyValue, fc.boolean()).map(([body, key, value, drop]) => {
    const copy = { ...body };
    if (drop) delete copy[key];
    else copy[key] = value;
    return copy;
  });
}

/** Bodies for a route: valid ones, valid ones with one field broken, and wild ones. */
function bodies(valid: fc.Arbitrary<Record<string, unknown>>, wild: fc.Arbitrary<Record<string, unknown>>, keys: string[]): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid, weight: 2 }, { arbitrary: mutated(valid, keys), weight: 3 }, { arbitrary: wild, weight: 2 }, { arbitrary: nastyValue, weight: 1 });
}

// eslint-disable-next-line no-control-regex -- NUL is what storage refuses.
const UNSTORABLE = /[\u0000\ud800-\udfff]/;
/** Text the API must store and answer, however odd: any graphemes, markup, RTL, emoji, 4000 characters. */
const storableText = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
    fc.constantFrom(
      '<script>alert(1)</script> refunds?',
      '[x](javascript:alert(1)) **bold** `code`',
      '\u202eRTL refunds\u202c',
      '😀👍🏽 refunds 👩‍👩‍👧‍👦',
      'r'.repeat(4000),
      "'; DROP TABLE conversation.chats; --",
    ),
  )
  .filter((t) => /\S/.test(t) && !UNSTORABLE.test(t.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')));

const question = fc.oneof(
  { arbitrary: fc.constantFrom('When does the shop open?', 'How long do refunds take?', 'What about the second one?', 'Who keeps the keys?', 'x'), weight: 3 },
  { arbitrary: storableText, weight: 1 },
);

/** Free-form JSON as clients send it: any keys, any values, some nesting. */
const freeForm = (minKeys: number) => fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { minKeys, maxKeys: 5 });

const validFilter = fc.constantFrom<Record<string, unknown>>(
  { kind: 'faq' },
  { kind: { $in: ['faq', 'policy'] } },
  { year: { $gte: 2023, $lt: 2030 } },
  { draft: false },
  { published: { $gt: '2023-01-01' } },
  { kind: { $ne: 'policy' } },
);
const filter = fc.oneof(
  validFilter,
  fc.dictionary(
    fc.constantFrom('kind', 'year', 'draft', 'published', 'nope', '$or', 'a.b', 'constructor', '__proto__'),
    mostly(
      fc.oneof(
        fc.constantFrom('faq', 'policy', 2024, true, '2024-01-01'),
        fc.dictionary(fc.constantFrom('$in', '$ne', '$gt', '$gte', '$lt', '$lte', '$eq', '$regex', '$where', 'toString', 'constructor'), nastyValue, { maxKeys: 3 }),
      ),
    ),
    { maxKeys: 3 },
  ),
  nastyValue,
);

const validIdentifier = fc.record(
  { id: fc.constantFrom('user-1', 'user-2', 'ünïcødé 😀'), name: fc.constantFrom('Ada', 'عائشة'), email: fc.constantFrom('ada@example.com', 'a.b+c@example.org') },
  { requiredKeys: ['id'] },
);
const identifier = fc.oneof(validIdentifier, mutated(validIdentifier, ['id', 'name', 'email']), nastyValue);

const QUESTION_KEYS = ['text', 'collections', 'tenant', 'identifier', 'filter'];
const validQuestion = fc.record(
  { text: question, collections: fc.subarray(['docs', 'default'], { minLength: 1 }), tenant: fc.integer({ min: 1, max: 2 }), identifier: validIdentifier, filter: validFilter },
  { requiredKeys: ['text', 'tenant'] },
);
const wildQuestion = someOf({
  text: mostly(question),
  collections: mostly(fc.array(mostly(fc.constantFrom('docs', 'default', 'nope')), { maxLength: 3 })),
  tenant: mostly(fc.integer({ min: 1, max: 3 })),
  identifier,
  filter,
});

export const questionBody = bodies(validQuestion, wildQuestion, QUESTION_KEYS);
export const searchBody = bodies(
  fc.tuple(validQuestion, fc.integer({ min: 1, max: 100 })).map(([q, limit]) => ({ ...q, limit })),
  fc.tuple(wildQuestion, nastyValue).map(([q, limit]) => ({ ...q, limit })),
  [...QUESTION_KEYS, 'limit'],
);

const ITEM_KEYS = ['id', 'data', 'metadata', 'tenant', 'url'];
const validItem = fc.record(
  {
    id: fc.oneof(
      fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() !== ''),
      fc.integer({ min: 0 }),
    ),
    data: fc.oneof(fc.record({ title: fc.constantFrom('Fuzzed', 'Ünïcødé 😀', 'שלום'), text: storableText }), freeForm(1)),
    metadata: fc.oneof(fc.record({ kind: fc.constantFrom('faq', 'policy'), year: fc.integer({ min: 1990, max: 2030 }) }, { requiredKeys: [] }), freeForm(0)),
    tenant: fc.integer({ min: 1, max: 3 }),
    url: fc.constantFrom('https://example.com/a', 'http://localhost:8080/x?y=1'),
  },
  { requiredKeys: ['id', 'data', 'tenant'] },
);
const wildItem = someOf({
  id: mostly(fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 0 }))),
  data: mostly(fc.dictionary(fc.constantFrom('title', 'text', 'body', 'toString'), mostly(fc.string({ maxLength: 60 })), { minKeys: 1, maxKeys: 3 })),
  metadata: mostly(fc.dictionary(fc.constantFrom('kind', 'year', 'draft', 'tags'), nastyValue, { maxKeys: 3 })),
  tenant: mostly(fc.integer({ min: 1, max: 3 })),
  url: mostly(fc.constantFrom('https://example.com/a', 'ftp://example.com', 'javascript:alert(1)', 'not a url')),
});
const validCollection = fc.record({ slug: fc.constantFrom('docs', 'fuzz'), name: fc.constantFrom('Docs', 'Fuzz ✓'), source: fc.constant('fuzz') }, { requiredKeys: ['slug'] });

export const upsertBody = bodies(
  fc.record({ items: fc.array(fc.oneof(validItem, validItem), { minLength: 1, maxLength: 3 }), collection: validCollection }, { requiredKeys: ['items'] }),
  someOf({
    items: mostly(fc.array(fc.oneof(validItem, mutated(validItem, ITEM_KEYS), wildItem), { maxLength: 4 })),
    collection: mostly(
      someOf({
        slug: mostly(fc.constantFrom('docs', 'fuzz', 'Bad Slug', '-x', 'a'.repeat(65))),
        name: nastyValue,
        source: nastyValue,
        metadata: mostly(fc.dictionary(nastyString, mostly(someOf({ type: mostly(fc.constantFrom('string', 'number', 'enum', 'color')), options: nastyValue })), { maxKeys: 3 })),
      }),
    ),
  }),
  ['items', 'collection'],
);

export const followUpBody = bodies(fc.record({ text: question }), someOf({ text: mostly(question) }), ['text']);
export const feedbackBody = bodies(
  fc.record({
    feedback: fc.oneof(
      fc.constantFrom('positive', 'negative'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }).filter((s) => /\S/.test(s)),
    ),
  }),
  someOf({ feedback: mostly(fc.constantFrom('positive', 'negative', 'x'.repeat(1001))) }),
  ['feedback'],
);

const validProject = fc.record(
  {
    name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((n) => n.length > 0),
    tenancy: fc.constantFrom('single', 'multi'),
    instructions: fc.string({ maxLength: 80 }),
  },
  { requiredKeys: ['name', 'tenancy'] },
);
export const projectBody = bodies(validProject, someOf({ name: nastyValue, tenancy: mostly(fc.constantFrom('single', 'multi', 'both')), instructions: nastyValue }), [
  'name',
  'tenancy',
  'instructions',
]);
export const projectPatchBody = bodies(
  fc.record({ name: validProject.map((p) => p.name), tenancy: fc.constantFrom('single', 'multi'), instructions: fc.string({ maxLength: 80 }) }, { requiredKeys: [] }),
  someOf({ name: nastyValue, tenancy: nastyValue, instructions: nastyValue }),
  ['name', 'tenancy', 'instructions'],
);
const validKey = fc.oneof(
  fc.record({ name: fc.string({ maxLength: 40 }), kind: fc.constant('secret') }, { requiredKeys: [] }),
  fc.record(
    { name: fc.string({ maxLength: 40 }), kind: fc.constant('publishable'), origins: fc.subarray(['https://shop.example', 'http://localhost:8080'], { minLength: 1 }) },
    { requiredKeys: ['kind', 'origins'] },
  ),
);
export const keyBody = bodies(
  validKey,
  someOf({
    name: nastyValue,
    kind: mostly(fc.constantFrom('secret', 'publishable', 'public')),
    origins: mostly(fc.array(mostly(fc.constantFrom('https://a.example', 'https://a.example/', '*')), { maxLength: 3 })),
  }),
  ['name', 'kind', 'origins'],
);

const SESSION_KEYS = ['tenant', 'identifier', 'collections', 'ttl'];
const validSession = fc.record(
  {
    tenant: fc.integer({ min: 1, max: 2 }),
    identifier: validIdentifier,
    collections: fc.subarray(['docs', 'default'], { minLength: 1 }),
    ttl: fc.integer({ min: 60, max: 86400 }),
  },
  { requiredKeys: ['tenant'] },
);
export const sessionBody = bodies(
  validSession,
  someOf({
    tenant: mostly(fc.integer({ min: 1, max: 3 })),
    identifier,
    collections: mostly(fc.array(mostly(fc.constantFrom('docs', 'Not a slug')), { maxLength: 3 })),
    ttl: mostly(fc.integer({ min: 0, max: 100000 })),
  }),
  SESSION_KEYS,
);

/** JSON texts that are not JSON, or JSON that is no body any route takes. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '[',
    '{"text":',
    '{"text":"unterminated',
    '{"items":[{"id":"a","data":{"t":1}}',
    '{"a":1,}',
    "{'text':'x'}",
    '{text:"x"}',
    'nul',
    'tru',
    'NaN',
    'Infinity',
    '-',
    '1e999',
    '0x10',
    '"just a string"',
    '42',
    'null',
    'true',
    '[]',
    '[1,2,3]',
    '{}',
    '\ufeff{"text":"x"}',
    '{"text":"\\ud800"}',
    '{"text":"\\u0000"}',
    '{"text":"\\x41"}',
    '{"text":"a","text":5}',
    '{"__proto__":{"admin":true},"text":"x"}',
    '{"constructor":{"prototype":{"x":1}},"text":"x"}',
    '\u0000',
    ' ',
    '\n',
  ),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => '['.repeat(n)),
  fc
    .jsonValue({ maxDepth: 3 })
    .map((v) => JSON.stringify(v))
    .chain((s) => fc.integer({ min: 0, max: Math.max(0, s.length - 1) }).map((cut) => s.slice(0, cut))),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

/** Content-Types a JSON API may be sent by mistake or on purpose. */
export const contentType = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/JSON',
  'application/vnd.api+json',
  'application/json;;',
  '*/*',
  '',
  'application/json',
);

/**
 * Path segments as they go on the wire (already percent-encoded, or deliberately broken): traversal, SQL,
 * encoded NUL and broken UTF-8, wrong-version and malformed UUIDs, over-long ids.
 */
export const PATH_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '..%2F..%2Fadmin%2Fprojects',
  '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
  '..%5C..%5C',
  '%252e%252e%252f',
  '%00',
  'a%00b',
  '%F0',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '%FF%FE',
  "1'%20OR%20'1'%3D'1",
  '1%3B%20DROP%20TABLE%20catalog.items',
  '%27',
  '%22',
  '*',
  '%25',
  '%20',
  '~',
  '$',
  '%7B%7B7*7%7D%7D',
  '%3Cscript%3E',
  'null',
  'undefined',
  '0',
  '-1',
  '1e309',
  'x'.repeat(300),
  '0'.repeat(36),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '01A20000-0000-7000-8000-00000000000',
  '%F0%9F%98%80',
];

export const pathSegment = (own: string[], foreign: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...own), weight: 4 },
    { arbitrary: fc.constantFrom(...foreign), weight: 2 },
    { arbitrary: fc.constantFrom(...PATH_SEGMENTS), weight: 3 },
    { arbitrary: fc.uuid().map((u) => u), weight: 1 },
    { arbitrary: nastyString.filter((s) => s.length > 0 && s.length < 300).map(encodeLoosely), weight: 1 },
  );

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encodes any string, a lone surrogate (which encodeURIComponent refuses) as the bytes of broken UTF-8. */
export const encodeLoosely = (s: string): string => s.split(LONE_SURROGATE).map(encodeURIComponent).join('%ED%A0%80');

/** A query string (`?a=b&...`) with the route's own parameters, page parameters and stray ones, hostile values. */
export const queryString = (params: string[], known: string[]): fc.Arbitrary<string> => {
  const key = fc.oneof(
    fc.constantFrom(...params, 'page', 'per_page'),
    fc.constantFrom(...params, 'page', 'per_page').map((k) => `${k}[]`),
    fc.constantFrom(...params, 'page', 'per_page').map((k) => `${k}[a]`),
    fc.constantFrom('__proto__', 'constructor', 'scope', 'project_id', 'projectId', '%00', ''),
  );
  const value = fc.oneof(
    fc.constantFrom(...known, '1', '2', '3', '0', '-1', '100', '101', '2147483648', '99999999999', '1.5', '1e3', 'NaN', 'all', 'query', 'chat', 'completed', 'docs'),
    fc.constantFrom(...PATH_SEGMENTS),
    nastyString.map(encodeLoosely),
  );
  return fc.array(fc.tuple(key, value), { maxLength: 5 }).map((pairs) => (pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&') : ''));
};
