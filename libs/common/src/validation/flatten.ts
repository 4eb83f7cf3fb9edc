import { FieldErrors, fieldMessage } from '@askdata/contracts';
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
        out[path] = chosen.map(([, m]) => fieldMessage(m, path));
      }
      if (err.children?.length) walk(err.children, path);
    }
  };
  walk(errors, prefix);
  return out;
}

/** Validates a plain object against a DTO class; returns the typed instance or the field errors. */
export function validateDto<T extends object>(
  cls: ClassConstructor<T>,
  plain: unknown,
): { value: T; errors: null } | { value: null; errors: FieldErrors } {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { value: null, errors: { body: ['The request body must be a JSON object.'] } };
  }
  const value = plainToInstance(cls, plain);
  const errors = validateSync(value, { forbidUnknownValues: false, validationError: { target: false } });
  if (errors.length) return { value: null, errors: flattenValidationErrors(errors) };
  return { value, errors: null };
}
