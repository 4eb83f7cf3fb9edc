/**
 * Shape checks of every resource of interface.md: each listed field is present with its type (ids UUIDv7,
 * timestamps with microseconds). A failing check lists every problem at once, with the field's path.
 */
import { TIMESTAMP, UUID } from './harness';

type Check = (value: unknown, path: string, problems: string[]) => void;

const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v) : (JSON.stringify(v) ?? String(v)));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const rule =
  (desc: string, ok: (v: unknown) => boolean): Check =>
  (v, p, problems) => {
    if (!ok(v)) problems.push(`${p}: expected ${desc}, got ${show(v)}`);
  };

export const str = rule('a string', (v) => typeof v === 'string');
export const nonEmpty = rule('a non-empty string', (v) => typeof v === 'string' && v.length > 0);
export const int = rule('an integer', (v) => Number.isInteger(v));
export const num = rule('a number', (v) => typeof v === 'number' && Number.isFinite(v));
export const bool = rule('a boolean', (v) => typeof v === 'boolean');
export const uuid = rule('a UUIDv7', (v) => typeof v === 'string' && UUID.test(v));
export const timestamp = rule('a timestamp like 2026-11-22T10:11:19.123456Z', (v) => typeof v === 'string' && TIMESTAMP.test(v));
export const plainObject = rule('an object', isObject);
export const anything: Check = () => undefined;
export const absoluteUrl = rule('an absolute http(s) URL', (v) => typeof v === 'string' && /^https?:\/\/[^/]+\//.test(v));

export const literal = (...values: unknown[]): Check => rule(`one of ${values.map(show).join(', ')}`, (v) => values.includes(v));

export const nullable =
  (check: Check): Check =>
  (v, p, problems) => {
    if (v !== null) check(v, p, problems);
  };

export const arrayOf =
  (check: Check): Check =>
  (v, p, problems) => {
    if (!Array.isArray(v)) problems.push(`${p}: expected an array, got ${show(v)}`);
    else v.forEach((e, i) => check(e, `${p}.${i}`, problems));
  };

export type Spec = Record<string, Check>;

/** An object with at least these fields (extra fields are allowed: they are additive extensions). */
export const object =
  (spec: Spec): Check =>
  (v, p, problems) => {
    if (!isObject(v)) {
      problems.push(`${p}: expected an object, got ${show(v)}`);
      return;
    }
    for (const [field, check] of Object.entries(spec)) {
      if (!(field in v)) problems.push(`${p}.${field}: missing`);
      else check(v[field], `${p}.${field}`, problems);
    }
  };

// interface.md resources ------------------------------------------------------------------------------------------

export const userSpec: Spec = { id: str, name: nullable(str), email: nullable(str), avatar: nullable(str), created_at: timestamp };

export const receiptSpec: Spec = { id: uuid, result: literal('Queued'), created_at: timestamp };

export const upsertSpec: Spec = {
  id: uuid,
  chunk_size: int,
  status: literal('queued', 'processing', 'completed', 'failed'),
  started_at: nullable(timestamp),
  completed_at: nullable(timestamp),
  created_at: timestamp,
};
/** decisions.md extension fields of Upsert. */
export const upsertExtensionSpec: Spec = { collection: nonEmpty, items_count: int, error: nullable(str), attempts: int };

export const collectionSpec: Spec = {
  id: uuid,
  name: str,
  slug: nonEmpty,
  source: str,
  metadata: arrayOf(object({ name: nonEmpty, type: literal('string', 'number', 'boolean', 'date', 'enum') })),
  created_at: timestamp,
  items_count: int,
};

export const itemSpec: Spec = {
  id: uuid,
  item_id: nonEmpty,
  tenant: nullable(int),
  url: nullable(str),
  created_at: timestamp,
  collection: object(collectionSpec),
  upserts: arrayOf(object(upsertSpec)),
};
/** decisions.md extension fields of Item. */
export const itemExtensionSpec: Spec = { data: plainObject, metadata: plainObject, updated_at: timestamp, language: nullable(str) };

export const sourceSpec: Spec = { index: int, item_id: nonEmpty, id: uuid, collection: nonEmpty, url: nullable(str), snippet: str };

export const messageSpec: Spec = {
  id: uuid,
  chat_id: uuid,
  role: literal('user', 'assistant'),
  text: str,
  text_html: str,
  identifier: nullable(str),
  feedback: nullable(str),
  created_at: timestamp,
  user: nullable(object(userSpec)),
  finish_reason: nullable(literal('complete', 'truncated', 'refused')),
};
export const assistantMessageSpec: Spec = { ...messageSpec, role: literal('assistant'), sources: arrayOf(object(sourceSpec)) };

export const chatSpec: Spec = {
  id: uuid,
  name: str,
  tenant: nullable(int),
  created_at: timestamp,
  user: nullable(object(userSpec)),
  messages: arrayOf(object(messageSpec)),
};

export const searchHitSpec: Spec = {
  id: uuid,
  item_id: nonEmpty,
  collection: nonEmpty,
  tenant: nullable(int),
  url: nullable(str),
  metadata: plainObject,
  score: num,
  snippet: str,
};

export const metaSpec: Spec = {
  current_page: int,
  from: nullable(int),
  last_page: int,
  links: arrayOf(object({ url: nullable(absoluteUrl), label: str, active: bool })),
  path: absoluteUrl,
  per_page: int,
  to: nullable(int),
  total: int,
};

export const pageSpec = (element: Check): Spec => ({
  data: arrayOf(element),
  meta: object(metaSpec),
  links: object({ first: absoluteUrl, last: absoluteUrl, prev: nullable(absoluteUrl), next: nullable(absoluteUrl) }),
});

export const validationErrorSpec: Spec = {
  message: nonEmpty,
  errors: (v, p, problems) => {
    if (!isObject(v) || Object.keys(v).length === 0) problems.push(`${p}: expected a non-empty object of field paths`);
    else
      for (const [k, msgs] of Object.entries(v)) {
        if (!Array.isArray(msgs) || msgs.length === 0 || !msgs.every((m) => typeof m === 'string' && m.length > 0)) {
          problems.push(`${p}.${k}: expected a non-empty array of messages, got ${show(msgs)}`);
        }
      }
  },
};

/** Asserts `value` passes `check`, listing every problem. */
export function expectShape(value: unknown, check: Check | Spec, name = 'body'): void {
  const problems: string[] = [];
  (typeof check === 'function' ? check : object(check))(value, name, problems);
  expect(problems).toEqual([]);
}

/** `{message}` and nothing else (the message-only error shape). */
export function expectMessageOnly(body: unknown): void {
  expect(isObject(body) ? Object.keys(body) : body).toEqual(['message']);
  expect(typeof (body as { message: unknown }).message).toBe('string');
  expect((body as { message: string }).message.length).toBeGreaterThan(0);
}

/**
 * The validation shape: `{message: "<first error>", errors: {"<path>": [msgs]}}`; `paths` are exactly the keys
 * expected in `errors`.
 */
export function expectValidation(res: { status: number; body: unknown; text?: string }, paths: string[]): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 422 });
  expectShape(res.body, validationErrorSpec);
  const body = res.body as { message: string; errors: Record<string, string[]> };
  expect(Object.keys(body.errors).sort()).toEqual([...paths].sort());
  expect(body.message).toBe(Object.values(body.errors)[0][0]);
}
