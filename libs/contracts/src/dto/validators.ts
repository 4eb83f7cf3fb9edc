import { Exclude, Transform, Type } from 'class-transformer';
import { ValidationOptions, registerDecorator } from 'class-validator';
import { FIELD_TYPES } from '../views';
import { Bounds } from '../limits';
import { Msg } from '../messages';

/** Item ids: a string or an integer, 1..255 characters once written as a string. */
export function IsItemId(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isItemId',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: Msg.itemId, ...options },
      validator: {
        validate(value: unknown) {
          if (typeof value === 'string') return value.length >= 1 && value.length <= Bounds.itemIdChars && value.trim() !== '';
          return typeof value === 'number' && Number.isSafeInteger(value);
        },
      },
    });
}

/** A plain object with at least one key (arrays are not objects here). */
export function IsNonEmptyPlainObject(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNonEmptyPlainObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: Msg.notEmptyObject, ...options },
      validator: { validate: (value: unknown) => isPlainObject(value) && Object.keys(value).length > 0 },
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

/** `{<field>: {type, options?}}` as collection.metadata declares filterable fields. */
export function IsFieldDeclarations(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isFieldDeclarations',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `The :attribute field must map field names to {type: ${FIELD_TYPES.join('|')}, options?: [...]}.`,
        ...options,
      },
      validator: {
        validate(value: unknown) {
          if (!isPlainObject(value)) return false;
          return Object.entries(value).every(([name, decl]) => {
            if (name.length === 0 || name.length > 128 || !isPlainObject(decl)) return false;
            const { type, options: opts } = decl as { type?: unknown; options?: unknown };
            if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) return false;
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

/** A class class-transformer copies no key of (class-level `@Exclude()`): its instances stand in for free-form JSON. */
@Exclude()
class Untouched {}

/**
 * Free-form JSON (an item's data and metadata, field declarations, filters) reaches the service exactly as sent.
 * Left to itself, class-transformer copies such objects key by key, silently dropping keys named like Object's
 * own members (`constructor`, `toString`, `valueOf`...) and failing on some; here it copies nothing inside, and
 * the value sent is put back as is.
 */
export function AsSent(): PropertyDecorator {
  const opaque = Type(() => Untouched);
  const original = Transform(({ obj, key }) => (obj as Record<string, unknown>)[key], { toClassOnly: true });
  return (target, propertyName) => {
    opaque(target, propertyName as string);
    original(target, propertyName as string);
  };
}
