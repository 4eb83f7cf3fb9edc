import { CollectionFieldView, FieldType, inferredFieldType, isFieldName } from '@askdata/contracts';
import { FieldMap } from './collection.entity';

/** Field types seen in a batch of items' metadata (first seen wins; nested objects are not filterable). */
export function inferFields(metadatas: Array<Record<string, unknown>>): FieldMap {
  const out: FieldMap = {};
  for (const md of metadatas) {
    for (const [name, value] of Object.entries(md)) {
      if (out[name] || !isFieldName(name)) continue;
      const type = inferredFieldType(value);
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

/** The names of the fields a collection declares or infers. */
export function fieldNames(declared: FieldMap, inferred: FieldMap): Set<string> {
  return new Set([...Object.keys(declared), ...Object.keys(inferred)]);
}
