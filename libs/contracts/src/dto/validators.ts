import { Exclude, Transform, Type } from 'class-transformer';
import { ValidationOptions, registerDecorator } from 'class-validator';
import { FIELD_TYPES } from '../views';
import { Bounds, charCount, FIELD_NAME_RULE, isFieldName } from '../limits';
import { isLanguageCode, WITHDRAWN_LANGUAGE_CODES } from '../language';
import { Msg } from '../messages';

/** An item id: a string or an integer, 1..255 characters once written as a string. */
export function isItemId(value: unknown): boolean {
  if (typeof value === 'string') return value.length >= 1 && charCount(value) <= Bounds.itemIdChars && value.trim() !== '';
  return typeof value === 'number' && Number.isSafeInteger(value);
}

export function IsItemId(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isItemId',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: Msg.itemId, ...options },
      validator: { validate: isItemId },
    });
}

/** An ISO 639-1 language code. */
export function IsLanguageCode(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isLanguageCode',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ value }) =>
          typeof value === 'string' && Object.hasOwn(WITHDRAWN_LANGUAGE_CODES, value)
            ? `${Msg.language} "${value}" was withdrawn from ISO 639-1: send "${WITHDRAWN_LANGUAGE_CODES[value]}".`
            : Msg.language,
        ...options,
      },
      validator: { validate: (value: unknown) => isLanguageCode(value) },
    });
}

/** A decorator of one check with one message (options may give another message). */
function check(name: string, message: string, validate: (value: unknown) => boolean): (options?: ValidationOptions) => PropertyDecorator {
  return (options) => (target, propertyName) =>
    registerDecorator({ name, target: target.constructor, propertyName: propertyName as string, options: { message, ...options }, validator: { validate } });
}

/** An array with at least one element; anything else is left to `IsArray`, so that it gets one message. */
export const IsNonEmptyArray = check('isNonEmptyArray', Msg.minItems(1), (value) => !Array.isArray(value) || value.length > 0);

/** A string that is not only whitespace; the empty string and non-strings are left to `MinLength` and `IsString`. */
export const IsNotBlank = check('isNotBlank', Msg.notBlank, (value) => typeof value !== 'string' || value === '' || /\S/.test(value));

/** A plain object with at least one key (arrays are not objects here). */
export function IsNonEmptyPlainObject(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNonEmptyPlainObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: Msg.notEmptyObject, ...options },
      validator: { validate: isNonEmptyPlainObject },
    });
}

export function IsPlainObject(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPlainObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: Msg.object, ...options },
      validator: { validate: (value: unknown) => isPlainObject(value) },
    });
}

const DECLARATION_KEYS = new Set(['type', 'options', 'description']);

/**
 * `{<field>: {type, options?, description?}}` as collection.metadata declares fields: `options` for an enum,
 * `description` (1..500 characters) what the field holds, in words. Any other key is refused, not ignored.
 */
export function IsFieldDeclarations(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isFieldDeclarations',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message:
          `The :attribute field must map field names (${FIELD_NAME_RULE}) to {type: ${FIELD_TYPES.join('|')}, options?: [...], ` +
          `description?: a string of 1 to ${Bounds.fieldDescriptionChars} characters}.`,
        ...options,
      },
      validator: {
        validate(value: unknown) {
          if (!isPlainObject(value)) return false;
          return Object.entries(value).every(([name, decl]) => {
            if (!isFieldName(name) || !isPlainObject(decl)) return false;
            if (Object.keys(decl).some((k) => !DECLARATION_KEYS.has(k))) return false;
            const { type, options: opts, description } = decl as { type?: unknown; options?: unknown; description?: unknown };
            if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) return false;
            if (description !== undefined && (typeof description !== 'string' || !description.trim() || charCount(description) > Bounds.fieldDescriptionChars)) return false;
            if (opts === undefined) return type !== 'enum';
            return Array.isArray(opts) && opts.length > 0 && opts.every((o) => typeof o === 'string' || typeof o === 'number');
          });
        },
      },
    });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNonEmptyPlainObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length > 0;
}

/**
 * An integer query parameter: only plain decimal digits become a number. Anything else (`0x10`, `1e1`, `+2`, `2.0`,
 * ` 1`, which `Number()` would take) is left as sent, so that `@IsInt` refuses it.
 */
export function QueryInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value), { toClassOnly: true });
}

/** A class class-transformer copies no key of (class-level `@Exclude()`): its instances stand in for free-form JSON. */
@Exclude()
class Untouched {}

/** Copies made by {@link transformable}, to the value each was made from. */
const originals = new WeakMap<object, object>();

/**
 * A copy of a request body that class-transformer can walk: it takes an object's own `constructor` key for the
 * object's class (and fails on it), so objects lose that key here. Free-form fields ({@link AsSent}) get the value
 * as sent back.
 */
export function transformable(input: unknown): unknown {
  if (Array.isArray(input)) {
    const copy = input.map(transformable);
    originals.set(copy, input);
    return copy;
  }
  if (!isPlainObject(input)) return input;
  const copy = Object.fromEntries(
    Object.entries(input)
      .filter(([k]) => k !== 'constructor')
      .map(([k, v]) => [k, transformable(v)]),
  );
  originals.set(copy, input);
  return copy;
}

/**
 * Free-form JSON (an item's data and metadata, field declarations, filters) reaches the service exactly as sent.
 * Left to itself, class-transformer copies such objects key by key, silently dropping keys named like Object's
 * own members (`constructor`, `toString`, `valueOf`...); here it copies nothing inside, and the value sent is put
 * back as is.
 */
export function AsSent(): PropertyDecorator {
  const opaque = Type(() => Untouched);
  const original = Transform(({ obj, key }) => ((originals.get(obj as object) ?? obj) as Record<string, unknown>)[key], { toClassOnly: true });
  return (target, propertyName) => {
    opaque(target, propertyName);
    original(target, propertyName);
  };
}
