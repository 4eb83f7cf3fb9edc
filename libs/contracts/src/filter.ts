import { FieldErrors } from './errors';
import { isPlainObject } from './dto/validators';
import { Bounds, FIELD_NAME_RULE, isFieldName } from './limits';
import { fieldMessage, Msg } from './messages';

/** Metadata filter of /query, /chats and /search (decisions.md, "Questions"). */
export type Scalar = string | number | boolean;
export type FilterCondition =
  { op: 'eq'; value: Scalar } | { op: 'ne'; value: Scalar } | { op: 'in'; values: Scalar[] } | { op: 'gt' | 'gte' | 'lt' | 'lte'; value: number | string };
export interface FieldFilter {
  field: string;
  conditions: FilterCondition[];
}

const RANGE_OPS = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' } as const;

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * Parses the filter syntax. Field existence and types are checked by retrieval against the collections'
 * declared fields; this only rejects what is malformed whatever the fields.
 */
export function parseFilter(filter: unknown, path = 'filter'): { filters: FieldFilter[]; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const filters: FieldFilter[] = [];
  const fail = (p: string, m: string) => (errors[p] ??= []).push(m);
  if (filter === undefined || filter === null) return { filters, errors };
  if (!isPlainObject(filter)) {
    fail(path, `The ${path} field must be an object.`);
    return { filters, errors };
  }
  for (const [field, spec] of Object.entries(filter)) {
    const p = `${path}.${field}`;
    if (!isFieldName(field)) {
      fail(p, `The ${p} field name is not a valid metadata field name (${FIELD_NAME_RULE}).`);
      continue;
    }
    if (isScalar(spec)) {
      filters.push({ field, conditions: [{ op: 'eq', value: spec }] });
      continue;
    }
    if (!isPlainObject(spec) || Object.keys(spec).length === 0) {
      fail(p, `The ${p} field must be a value or an object of operators ($in, $ne, $gt, $gte, $lt, $lte).`);
      continue;
    }
    const conditions: FilterCondition[] = [];
    for (const [op, arg] of Object.entries(spec)) {
      const q = `${p}.${op}`;
      if (op === '$in') {
        if (Array.isArray(arg) && arg.length > Bounds.filterInValues) {
          fail(q, fieldMessage(Msg.maxItems(Bounds.filterInValues), q));
        } else if (!Array.isArray(arg) || arg.length === 0 || !arg.every(isScalar)) {
          fail(q, `The ${q} field must be a non-empty array of values.`);
        } else conditions.push({ op: 'in', values: arg });
      } else if (op === '$ne') {
        if (!isScalar(arg)) fail(q, `The ${q} field must be a string, number or boolean.`);
        else conditions.push({ op: 'ne', value: arg });
      } else if (op === '$eq') {
        if (!isScalar(arg)) fail(q, `The ${q} field must be a string, number or boolean.`);
        else conditions.push({ op: 'eq', value: arg });
      } else if (Object.hasOwn(RANGE_OPS, op)) {
        if (!((typeof arg === 'number' && Number.isFinite(arg)) || typeof arg === 'string')) {
          fail(q, `The ${q} field must be a number or a date.`);
        } else conditions.push({ op: RANGE_OPS[op as keyof typeof RANGE_OPS], value: arg });
      } else {
        fail(q, `The operator ${op} is not supported; use $in, $ne, $gt, $gte, $lt or $lte.`);
      }
    }
    if (conditions.length > 0) filters.push({ field, conditions });
  }
  return { filters, errors };
}
