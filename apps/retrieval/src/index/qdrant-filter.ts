import type { Schemas } from '@qdrant/js-client-rest';
import { FieldFilter, FilterCondition, Scalar } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';

type Condition = Schemas['Condition'];
type Filter = Schemas['Filter'];
export type PayloadIndexType = 'keyword' | 'integer' | 'float' | 'bool' | 'datetime';

/** Where a chunk's fields live in a point's payload. */
export const PAYLOAD = {
  item: 'item',
  itemId: 'item_id',
  collection: 'collection',
  tenant: 'tenant',
  url: 'url',
  metadata: 'metadata',
  text: 'text',
  chunk: 'chunk',
} as const;

/**
 * The payload key of a metadata field. Qdrant reads dots as nesting, so a field name that is not a plain word
 * (`a.b`) is quoted: `metadata."a.b"`.
 */
export function metadataKey(field: string): string {
  return `${PAYLOAD.metadata}.${/^[A-Za-z_-][A-Za-z0-9_-]*$/.test(field) ? field : `"${field}"`}`;
}

/** Tenants are keyword payload (Qdrant's `is_tenant` index is a keyword index). */
export function tenantValue(tenant: number): string {
  return String(tenant);
}

/**
 * The Qdrant filter of a search: the tenant, the collections and the metadata conditions, all inside the query.
 * Equality and `$in` match scalars and any element of arrays (as in the PostgreSQL backend); numbers that are
 * not integers match through a closed range, since Qdrant matches only strings, integers and booleans; ranges
 * compare numbers, or dates as instants.
 */
export function searchFilter(tenant: number | null, collections: string[] | null, filters: FieldFilter[]): Filter {
  const must: Condition[] = [];
  const mustNot: Condition[] = [];
  if (tenant !== null) must.push({ key: PAYLOAD.tenant, match: { value: tenantValue(tenant) } });
  if (collections) must.push({ key: PAYLOAD.collection, match: { any: [...new Set(collections)] } });
  for (const f of filters) {
    const key = metadataKey(f.field);
    for (const c of f.conditions) {
      if (c.op === 'eq') must.push(equals(key, c.value));
      else if (c.op === 'ne') mustNot.push(equals(key, c.value));
      else if (c.op === 'in') must.push(oneOf(key, c.values));
      else must.push(range(f.field, key, c));
    }
  }
  return { must, ...(mustNot.length ? { must_not: mustNot } : {}) };
}

function equals(key: string, v: Scalar): Condition {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) return { key, range: { gte: v, lte: v } };
  return { key, match: { value: v } };
}

function oneOf(key: string, values: Scalar[]): Condition {
  const strings = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  const integers = [...new Set(values.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v)))];
  const rest = [...new Set(values.filter((v) => typeof v === 'boolean' || (typeof v === 'number' && !Number.isSafeInteger(v))))];
  const any: Condition[] = [
    ...(strings.length ? [{ key, match: { any: strings } }] : []),
    ...(integers.length ? [{ key, match: { any: integers } }] : []),
    ...rest.map((v) => equals(key, v)),
  ];
  return any.length === 1 ? any[0] : { should: any };
}

function range(field: string, key: string, c: Extract<FilterCondition, { op: 'gt' | 'gte' | 'lt' | 'lte' }>): Condition {
  if (typeof c.value === 'number') return { key, range: { [c.op]: c.value } };
  const at = Date.parse(c.value);
  if (Number.isNaN(at)) {
    throw ServiceError.invalidField(`filter.${field}.$${c.op}`, `The filter.${field}.$${c.op} field must be a number or a date.`);
  }
  return { key, range: { [c.op]: new Date(at).toISOString() } };
}

/** The payload index a metadata filter wants, from the values it compares with. */
export function indexTypeOf(f: FieldFilter): PayloadIndexType {
  const values = f.conditions.flatMap((c) => (c.op === 'in' ? c.values : [c.value]));
  if (values.some((v) => typeof v === 'boolean')) return 'bool';
  if (values.every((v) => typeof v === 'number')) return values.every((v) => Number.isSafeInteger(v)) ? 'integer' : 'float';
  const ranged = f.conditions.some((c) => c.op === 'gt' || c.op === 'gte' || c.op === 'lt' || c.op === 'lte');
  return ranged ? 'datetime' : 'keyword';
}
