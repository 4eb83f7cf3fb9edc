import { Bounds, FieldErrors, fieldMessage, Msg, transformable } from '@askdata/contracts';
import { TimeSlices } from '../async/time-slices';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';

/**
 * Flattens class-validator's tree into `{"items.3.tenant": ["The items.3.tenant field is required."]}`.
 * Messages carry `:attribute`, replaced here by the full path. When a field is missing or null, only "required" is
 * kept (not "must be an object" for `"items": null`).
 */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  const walk = (list: ValidationError[], base: string) => {
    for (const err of list) {
      const path = base ? `${base}.${err.property}` : err.property;
      if (err.constraints) {
        const entries = Object.entries(err.constraints);
        const required = entries.find(([k]) => k === 'isDefined');
        // isDefined fails on undefined and null alike.
        const chosen = required ? [required] : entries.reverse();
        out[path] = [...new Set(chosen.map(([k, m]) => fieldMessage(k === 'whitelistValidation' ? Msg.unknownField : m, path)))];
      }
      // An object where an array goes was validated as if it were an element: its "children" are no paths of the body.
      if (err.children?.length && !err.constraints?.isArray) walk(err.children, path);
    }
  };
  walk(errors, prefix);
  return out;
}

/** A NUL character or a UTF-16 surrogate without its other half: valid in JSON, refused by PostgreSQL's text and jsonb. */
// eslint-disable-next-line no-control-regex -- NUL is the character refused here.
export const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What no field may hold, whatever its type: strings or keys with NUL characters or unpaired surrogates, numbers
 * beyond a double's range (`1e999` parses as Infinity, which JSON writes as null: it would be stored as null), and
 * objects or arrays nested deeper than `Bounds.jsonDepth` (which would exhaust the stack of whatever walks them).
 * A bad key is reported at the object that holds it.
 */
export function unstorableInputErrors(input: unknown): FieldErrors | null {
  const errors: FieldErrors = {};
  const walk = (value: unknown, path: string, depth: number) => {
    const at = path || 'body';
    if (typeof value === 'string') {
      if (UNSTORABLE_TEXT.test(value)) errors[at] = [fieldMessage(Msg.text, at)];
      return;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) errors[at] = [fieldMessage(Msg.finite, at)];
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (depth > Bounds.jsonDepth) {
      errors[at] = [fieldMessage(Msg.depth(Bounds.jsonDepth), at)];
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (UNSTORABLE_TEXT.test(key)) errors[at] = [fieldMessage(Msg.text, at)];
      else walk(child, path ? `${path}.${key}` : key, depth + 1);
    }
  };
  walk(input, '', 0);
  return Object.keys(errors).length ? errors : null;
}

/**
 * Validates a plain object against a DTO class; returns the typed instance or the field errors. A field the class
 * does not declare (a misspelt `colections`, say) is an error at its path, never silently ignored; free-form objects
 * (`metadata`, `filter`, an item's fields) are values, not declared fields, and keep any keys.
 */
export function validateDto<T extends object>(cls: ClassConstructor<T>, plain: unknown): Validated<T> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { value: null, errors: { body: ['The request body must be a JSON object.'] } };
  }
  const unstorable = unstorableInputErrors(plain);
  if (unstorable) return { value: null, errors: unstorable };
  const value = plainToInstance(cls, transformable(plain));
  const errors = validateSync(value, VALIDATION);
  if (errors.length) return { value: null, errors: flattenValidationErrors(errors) };
  return { value, errors: null };
}

type Validated<T> = { value: T; errors: null } | { value: null; errors: FieldErrors };

const VALIDATION = { forbidUnknownValues: false, whitelist: true, forbidNonWhitelisted: true, validationError: { target: false } };

/**
 * {@link validateDto} for a body holding a long array under `key` (an upsert's 500 items): the same value and the
 * same errors, but the array validated `slice` elements at a time, the event loop served between slices once it has waited a few milliseconds, so that requests
 * arriving meanwhile are not held up for the whole body (tens of milliseconds for 500 items).
 */
export async function validateDtoInSlices<T extends object>(cls: ClassConstructor<T>, plain: unknown, key: string, slice: number): Promise<Validated<T>> {
  const body = typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : null;
  const list = body?.[key];
  if (!body || !Array.isArray(list) || list.length <= slice) return validateDto(cls, plain);
  const unstorable = unstorableInputErrors(plain);
  if (unstorable) return { value: null, errors: unstorable };
  const parts: Array<{ value: T; errors: ValidationError[] }> = [];
  const slices = new TimeSlices();
  for (let at = 0; at < list.length; at += slice) {
    if (at && slices.due()) await slices.next();
    const value = plainToInstance(cls, transformable({ ...body, [key]: list.slice(at, at + slice) }));
    const errors = validateSync(value, VALIDATION);
    // The slice's elements are numbered from `at`, as in the whole array.
    for (const child of errors.find((e) => e.property === key)?.children ?? []) child.property = String(Number(child.property) + at);
    parts.push({ value, errors });
  }
  // The other fields were the same in every slice, and so are their errors: the first slice with errors in the array
  // gives them, in class-validator's order, and the array's errors are those of all slices.
  const arrayErrors = parts.map((p) => p.errors.find((e) => e.property === key)).filter((e): e is ValidationError => e !== undefined);
  const errors = parts.find((p) => p.errors.some((e) => e.property === key))?.errors ?? parts[0].errors;
  const inArray = errors.find((e) => e.property === key);
  if (inArray) {
    inArray.constraints = arrayErrors.reduce<Record<string, string> | undefined>((all, e) => (e.constraints ? { ...all, ...e.constraints } : all), undefined);
    inArray.children = arrayErrors.flatMap((e) => e.children ?? []);
  }
  if (errors.length) return { value: null, errors: flattenValidationErrors(errors) };
  const value = parts[0].value;
  (value as Record<string, unknown>)[key] = parts.flatMap((p) => (p.value as Record<string, unknown[]>)[key]);
  return { value, errors: null };
}
