/**
 * Validation messages in the wording clients of the public product already parse. `:attribute` is replaced by
 * the full field path (`items.3.tenant`) when errors are flattened.
 */
export const Msg = {
  required: 'The :attribute field is required.',
  string: 'The :attribute field must be a string.',
  integer: 'The :attribute field must be an integer.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute field must be an array.',
  object: 'The :attribute field must be an object.',
  eachObject: 'Every element of the :attribute field must be an object.',
  url: 'The :attribute field must be a valid URL.',
  email: 'The :attribute field must be a valid email address.',
  invalid: 'The selected :attribute is invalid.',
  notBlank: 'The :attribute field must not be only whitespace.',
  someSlugs: 'The :attribute field must name at least one collection slug (omit it to search all collections).',
  notEmptyObject: 'The :attribute field must be a non-empty object.',
  itemId: 'The :attribute field must be a string or an integer of 1 to 255 characters.',
  slug: 'The :attribute field must contain only lowercase letters, digits, dashes and underscores (1 to 64 characters).',
  text: 'The :attribute field must not contain NUL characters or unpaired surrogates.',
  finite: 'The :attribute field must be a number between -1.7976931348623157e308 and 1.7976931348623157e308.',
  unknownField: 'The :attribute field is not a field of this request.',
  depth: (n: number) => `The :attribute field must not be nested more than ${n} levels deep.`,
  min: (n: number) => `The :attribute field must be at least ${n}.`,
  max: (n: number) => `The :attribute field must not be greater than ${n}.`,
  minChars: (n: number) => `The :attribute field must be at least ${n} characters.`,
  maxChars: (n: number) => `The :attribute field must not be greater than ${n} characters.`,
  minItems: (n: number) => `The :attribute field must have at least ${n} items.`,
  maxItems: (n: number) => `The :attribute field must not have more than ${n} items.`,
  language: 'The :attribute field must be an ISO 639-1 language code (two lowercase letters, e.g. "en").',
  oneOf: (values: readonly string[]) => `The :attribute field must be one of: ${values.join(', ')}.`,
} as const;

export function fieldMessage(template: string, path: string): string {
  return template.split(':attribute').join(path);
}
