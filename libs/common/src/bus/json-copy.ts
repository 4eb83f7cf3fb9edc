/**
 * What `JSON.parse(JSON.stringify(value))` gives, without the text in between: the in-process bus copies every
 * payload as the wire would carry it (dates become strings, `toJSON` is called, undefined members and functions are
 * left out, `NaN` becomes null, a cycle or a BigInt throws), but its strings are shared rather than written out and
 * read back. Strings cannot be changed, so sharing them is as good as copying them; objects and arrays are new.
 * Undefined for what JSON.stringify would not write at all (undefined, a function).
 */
export function jsonCopy<T>(value: T): T {
  return copyMember({ '': value }, '', value, []) as T;
}

/**
 * A member of `holder` as JSON.stringify serializes it, then as JSON.parse reads it back: undefined where the text
 * would leave it out. `ancestors` are the objects being copied around it, for JSON's error on a cycle.
 */
function copyMember(holder: object, key: string, value: unknown, ancestors: object[]): unknown {
  if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = toJSON.call(value, key) as unknown;
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0, and infinities and NaN as null.
      return Number.isFinite(value) ? value + 0 : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      if (value === null) return null;
      if (value instanceof Number || value instanceof String || value instanceof Boolean) {
        return copyMember({ '': null }, key, value.valueOf(), ancestors);
      }
      if (ancestors.includes(value)) throw new TypeError('Converting circular structure to JSON');
      ancestors.push(value);
      try {
        return Array.isArray(value) ? copyArray(value, ancestors) : copyObject(value, ancestors);
      } finally {
        ancestors.pop();
      }
    default:
      // undefined, functions and symbols: left out of objects, null in arrays.
      return undefined;
  }
}

function copyArray(array: unknown[], ancestors: object[]): unknown[] {
  // Not an array literal: V8 remembers per literal whether what it made lived long, and once the copies of a
  // load had (accepted batches, index batches waiting for the index), it made every later copy in the old generation,
  // a search's hits too, which then kept all they referenced through young collections (bench/young-survivors). An
  // empty object literal, as below, and `new Array` are not followed that way.
  const copy: unknown[] = new Array(array.length);
  for (let i = 0; i < array.length; i++) copy[i] = copyMember(array, String(i), array[i], ancestors) ?? null;
  return copy;
}

function copyObject(object: object, ancestors: object[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const member = copyMember(object, key, (object as Record<string, unknown>)[key], ancestors);
    if (member === undefined) continue;
    // JSON.parse makes "__proto__" an own member, where an assignment would set the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
    else copy[key] = member;
  }
  return copy;
}
