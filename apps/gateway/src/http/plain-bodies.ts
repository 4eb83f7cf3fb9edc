import { Bounds, CollectionInputDto, CreateUpsertDto, isItemId, isNonEmptyPlainObject, isPlainObject, QuestionDto, SearchDto, UpsertItemDto } from '@askdata/contracts';
import { UNSTORABLE_TEXT, unstorableInputErrors } from '@askdata/common';

type FieldCheck = (value: unknown) => boolean;

const questionText: FieldCheck = (v) => typeof v === 'string' && /\S/.test(v) && !UNSTORABLE_TEXT.test(v);
function integerFrom1(max: number): FieldCheck {
  return (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;
}
const tenantNumber = integerFrom1(Bounds.tenantMax);
const tenant: FieldCheck = (v) => v === null || tenantNumber(v);

/**
 * The fields of the bodies most often sent, in the forms that are valid without a doubt: a question's or a search's
 * text with its limit, tenant or stream flag, and nothing else. Such a body is taken as it is (`plainBody`); any
 * other (a filter, collections, a language, a field of another type or out of range, an unknown field) goes through
 * the class's validation, which gives its errors. class-validator costs a search a twentieth of its time at 5,000
 * documents.
 */
const PLAIN = new Map<unknown, Record<string, FieldCheck>>([
  [SearchDto, { text: questionText, limit: integerFrom1(Number.MAX_SAFE_INTEGER), tenant }],
  [QuestionDto, { text: questionText, tenant, stream: (v) => typeof v === 'boolean' }],
]);

/** An upsert's item in the form valid without a doubt: its id, data, metadata and tenant, nothing else. */
const ITEM: Record<string, FieldCheck> = {
  id: isItemId,
  data: isNonEmptyPlainObject,
  metadata: isPlainObject,
  tenant,
};

/** Whether `value` is a JSON object (as `JSON.parse` makes them) holding `required` and only the fields of `fields`. */
function plainRecord(value: unknown, fields: Record<string, FieldCheck>, required: string[]): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const record = value as Record<string, unknown>;
  if (required.some((key) => !(key in record))) return false;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(fields, key) || !fields[key](record[key])) return false;
  }
  return true;
}

const COLLECTION: Record<string, FieldCheck> = { slug: (v) => typeof v === 'string' && Bounds.slugPattern.test(v) };
/** An upsert's body as far as its own fields go: items (each checked against `ITEM`), a collection of a slug alone. */
const UPSERT: Record<string, FieldCheck> = {
  items: (v) => Array.isArray(v) && v.length > 0,
  collection: (v) => plainRecord(v, COLLECTION, ['slug']),
};

/**
 * An upsert's body as its validation would give it, when its items hold only plainly valid fields (`ITEM`) and its
 * collection, if any, only a slug: class-validator costs about 40 µs an item, most of the gateway's work on an
 * upsert. Null for any other body (a url, a language, a collection declaring fields), and for a body holding what
 * no field may (`unstorableInputErrors`): validate it.
 */
function plainUpsert(body: unknown): CreateUpsertDto | null {
  if (!plainRecord(body, UPSERT, ['items'])) return null;
  const { items, collection } = body as { items: object[]; collection?: object };
  for (const item of items) if (!plainRecord(item, ITEM, ['id', 'data'])) return null;
  if (unstorableInputErrors(body)) return null;
  const dto = new CreateUpsertDto();
  dto.items = items.map((item) => Object.assign(new UpsertItemDto(), item));
  if (collection !== undefined) dto.collection = Object.assign(new CollectionInputDto(), collection);
  return dto;
}

/**
 * `body` as an instance of `cls` when it holds only fields valid without a doubt (`PLAIN`, `plainUpsert`): what the
 * class's validation would give it. Null when the class has no such fields or the body has another: validate it.
 */
export function plainBody(cls: unknown, body: unknown): object | null {
  if (cls === CreateUpsertDto) return plainUpsert(body);
  const fields = PLAIN.get(cls);
  // The text is required: a body without it is validation's to refuse.
  return fields && plainRecord(body, fields, ['text']) ? Object.assign(new (cls as new () => object)(), body) : null;
}
