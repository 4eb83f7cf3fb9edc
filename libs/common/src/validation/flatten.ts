import { Bounds, FieldErrors, fieldMessage, Msg, transformable } from '@askdata/contracts';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';

/**
 * Flattens class-validator's tree into `{"items.3.tenant": ["The items.3.tenant field is required."]}`.
 * Messages carry `:attribute`, replaced here by the full path. When a field is missing, only "required" is kept.
 */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  const walk = (list: ValidationError[], base: string) => {
    for (const err of list) {
      const path = base ? `${base}.${err.property}` : err.property;
      if (err.constraints) {
        const entries = Object.entries(err.constraints);
        const required = entries.find(([k]) => k === 'isDefined');
        const chosen = err.value === undefined && required ? [required] : entries.reverse();
        out[path] = [...new Set(chosen.map(([k, m]) => fieldMessage(k === 'whitelistValidation' ? Msg.unknownField : m, path)))];
      }
      if (err.children?.length) walk(err.children, path);
    }
  };
  walk(errors, prefix);
  return out;
}

/** A NUL character or a UTF-16 surrogate without its other half: valid in JSON, refused by PostgreSQL's text and jsonb. */
// eslint-disable-next-line no-control-regex -- NUL is the character refused here.
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What no field may hold, whatever its type: strings or keys with NUL characters or unpaired surrogates, and
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
export function validateDto<T extends object>(cls: ClassConstructor<T>, plain: unknown): { value: T; errors: null } | { value: null; errors: FieldErrors } {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { value: null, errors: { body: ['The request body must be a JSON object.'] } };
  }
  const unstorable = unstorableInputErrors(plain);
  if (unstorable) return { value: null, errors: unstorable };
  const value = plainToInstance(cls, transformable(plain));
  const errors = validateSync(value, { forbidUnknownValues: false, whitelist: true, forbidNonWhitelisted: true, validationError: { target: false } });
  if (errors.length) return { value: null, errors: flattenValidationErrors(errors) };
  return { value, errors: null };
}
