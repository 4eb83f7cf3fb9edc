import { CollectionFieldView, FieldType, isFieldName } from '@askdata/contracts';
import { FieldMap } from './collection.entity';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function typeOf(value: unknown): FieldType | null {
  if (Array.isArray(value)) {
    const types = new Set(value.map(typeOf));
    return types.size === 1 ? [...types][0] : null;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return ISO_DATE.test(value) ? 'date' : 'string';
  return null;
}

/** Field types seen in a batch of items' metadata (first seen wins; nested objects are not filterable). */
export function inferFields(metadatas: Array<Record<string, unknown>>): FieldMap {
  const out: FieldMap = {};
  for (const md of metadatas) {
    for (const [name, value] of Object.entries(md)) {
      if (out[name] || !isFieldName(name)) continue;
      const type = typeOf(value);
      if (type) out[name] = { type };
    }
  }
  return out;
}

/** Declared fields first (they win), then inferred ones. */
export function mergeFields(declared: FieldMap, inferred: FieldMap): CollectionFieldView[] {
  const out: CollectionFieldView[] = [];
  for (const [name, f] of Object.entries(declared)) {
    out.push({ name, type: f.type as FieldType, ...(f.options ? { options: f.options } : {}), ...(f.description ? { description: f.description } : {}) });
  }
  for (const [name, f] of Object.entries(inferred)) {
    if (!(name in declared)) out.push({ name, type: f.type as FieldType });
  }
  return out;
}
