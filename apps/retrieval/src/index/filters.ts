import { CollectionFieldView, FieldFilter, FilterCondition, parseFilter, ResolvedCollection, Scalar } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';

/**
 * Checks a question's metadata filter against the fields the selected collections declare or have seen, and
 * returns the parsed filter. Unknown fields and values of the wrong type are 422s, never silently ignored.
 */
export function checkFilter(filter: unknown, collections: ResolvedCollection[]): FieldFilter[] {
  const { filters, errors } = parseFilter(filter);
  const fields = new Map<string, CollectionFieldView>();
  for (const c of collections) for (const f of c.fields) if (!fields.has(f.name)) fields.set(f.name, f);
  const fail = (path: string, message: string) => (errors[path] ??= []).push(message);
  for (const f of filters) {
    const field = fields.get(f.field);
    const path = `filter.${f.field}`;
    if (!field) {
      fail(path, `The field ${f.field} is not declared or seen in the metadata of the selected collections.`);
      continue;
    }
    for (const c of f.conditions) {
      for (const value of c.op === 'in' ? c.values : [c.value]) {
        const problem = typeProblem(field, c, value);
        if (problem) fail(c.op === 'eq' ? path : `${path}.$${c.op}`, problem);
      }
    }
  }
  if (Object.keys(errors).length) throw ServiceError.validation(errors);
  return filters;
}

function typeProblem(field: CollectionFieldView, c: FilterCondition, value: Scalar): string | null {
  const range = c.op === 'gt' || c.op === 'gte' || c.op === 'lt' || c.op === 'lte';
  switch (field.type) {
    case 'number':
      return typeof value === 'number' ? null : `The ${field.name} field is a number.`;
    case 'boolean':
      if (range) return `The ${field.name} field is a boolean and has no order.`;
      return typeof value === 'boolean' ? null : `The ${field.name} field is true or false.`;
    case 'date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : `The ${field.name} field is a date (ISO 8601).`;
    case 'enum':
      if (field.options && !field.options.includes(value as string | number)) {
        return `The ${field.name} field is one of: ${field.options.join(', ')}.`;
      }
      return null;
    case 'string':
      return typeof value === 'string' ? null : `The ${field.name} field is a string.`;
  }
}

/**
 * Translates the filter into SQL conditions on a jsonb column, adding parameters to `params`. An `$in` list is one
 * parameter (a jsonb array) whatever its length: a value matches when it equals one of the list, an array value
 * when one of its elements does.
 */
export function filterSql(filters: FieldFilter[], column: string, params: unknown[]): string[] {
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // Scalars match scalars, and arrays match when any element does.
  const eq = (field: string, v: Scalar) => `(${column} @> ${p(JSON.stringify({ [field]: v }))}::jsonb OR ${column} @> ${p(JSON.stringify({ [field]: [v] }))}::jsonb)`;
  const out: string[] = [];
  for (const f of filters) {
    for (const c of f.conditions) {
      if (c.op === 'eq') out.push(eq(f.field, c.value));
      else if (c.op === 'ne') out.push(`NOT ${eq(f.field, c.value)}`);
      else if (c.op === 'in') {
        const value = `${column} -> ${p(f.field)}`;
        const list = `${p(c.values.map((v) => JSON.stringify(v)))}::jsonb[]`;
        out.push(
          `(CASE jsonb_typeof(${value}) WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${value}) AS e(v) WHERE e.v = ANY(${list})) ` +
            `ELSE ${value} = ANY(${list}) END)`,
        );
      } else {
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[c.op];
        if (typeof c.value === 'number') {
          out.push(`(jsonb_typeof(${column} -> ${p(f.field)}) = 'number' AND (${column} ->> ${p(f.field)})::numeric ${op} ${p(c.value)})`);
        } else {
          // Dates compare as ISO 8601 text, character by character (code points: the "C" collation, as `metadataTest`).
          out.push(`(jsonb_typeof(${column} -> ${p(f.field)}) = 'string' AND (${column} ->> ${p(f.field)}) COLLATE "C" ${op} ${p(c.value)})`);
        }
      }
    }
  }
  return out;
}

/** Metadata as stored: a JSON object. */
export type Metadata = Record<string, unknown>;

/**
 * The filter as a test of a chunk's metadata, true exactly where `filterSql`'s conditions hold on the same JSON: the
 * memory index's twin of them. A value matches a scalar when it is that scalar (numbers by value, no conversion
 * between types) or an array with it among its elements; a missing field matches no value (and so every `$ne`);
 * ranges hold between numbers, or between strings compared by code points.
 */
export function metadataTest(filters: readonly FieldFilter[]): (metadata: Metadata) => boolean {
  const tests = filters.flatMap((f) => f.conditions.map((c) => conditionTest(f.field, c)));
  return (metadata) => tests.every((test) => test(metadata));
}

function conditionTest(field: string, c: FilterCondition): (metadata: Metadata) => boolean {
  const valueOf = (m: Metadata): unknown => (Object.hasOwn(m, field) ? m[field] : undefined);
  const has = (x: unknown, v: Scalar) => x === v || (Array.isArray(x) && x.includes(v));
  switch (c.op) {
    case 'eq':
      return (m) => has(valueOf(m), c.value);
    case 'ne':
      return (m) => !has(valueOf(m), c.value);
    case 'in': {
      const values = new Set<unknown>(c.values);
      return (m) => {
        const x = valueOf(m);
        return Array.isArray(x) ? x.some((e) => values.has(e)) : values.has(x);
      };
    }
    default: {
      const holds = { gt: (d: number) => d > 0, gte: (d: number) => d >= 0, lt: (d: number) => d < 0, lte: (d: number) => d <= 0 }[c.op];
      const bound = c.value;
      if (typeof bound === 'number') {
        return (m) => {
          const x = valueOf(m);
          return typeof x === 'number' && holds(x < bound ? -1 : x > bound ? 1 : 0);
        };
      }
      return (m) => {
        const x = valueOf(m);
        return typeof x === 'string' && holds(codePointOrder(x, bound));
      };
    }
  }
}

/** Negative, zero or positive as `a` comes before, with or after `b` in code point order (UTF-8's byte order). */
export function codePointOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}
