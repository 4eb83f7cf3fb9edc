import { isFieldName, Bounds } from './limits';
import { FieldType } from './views';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The type a metadata value gives the field it is under, or null when it gives it none (objects, mixed arrays). */
export function inferredFieldType(value: unknown): FieldType | null {
  if (Array.isArray(value)) {
    const types = new Set(value.map(inferredFieldType));
    return types.size === 1 ? [...types][0] : null;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return ISO_DATE.test(value) ? 'date' : 'string';
  return null;
}

/** A metadata field an upsert declares or makes the collection infer, and where in the request it comes from. */
export interface FieldSource {
  name: string;
  path: string;
}

/**
 * The fields an upsert declares (`collection.metadata`) or makes its collection infer (items' metadata keys with a
 * type), each once, in the order of the request.
 */
export function upsertFieldSources(declared: Record<string, unknown> | undefined, metadatas: Array<Record<string, unknown> | undefined>): FieldSource[] {
  const seen = new Set<string>();
  const out: FieldSource[] = [];
  for (const name of Object.keys(declared ?? {})) {
    if (!seen.has(name)) out.push({ name, path: `collection.metadata.${name}` });
    seen.add(name);
  }
  metadatas.forEach((md, i) => {
    for (const [name, value] of Object.entries(md ?? {})) {
      if (seen.has(name) || !isFieldName(name) || inferredFieldType(value) === null) continue;
      seen.add(name);
      out.push({ name, path: `items.${i}.metadata.${name}` });
    }
  });
  return out;
}

/**
 * The first source that would take a collection with these fields beyond `Bounds.collectionFields`, as the field
 * error of a 422; null when all fit.
 */
export function fieldLimitErrors(existing: ReadonlySet<string>, sources: FieldSource[]): Record<string, string[]> | null {
  let count = existing.size;
  for (const s of sources) {
    if (existing.has(s.name)) continue;
    if (++count > Bounds.collectionFields) {
      return { [s.path]: [`The ${s.path} field is one more metadata field than a collection may declare or infer (${Bounds.collectionFields}).`] };
    }
  }
  return null;
}
