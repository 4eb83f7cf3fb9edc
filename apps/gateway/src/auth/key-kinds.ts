import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { FieldErrors, KeyKind } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';

/** How a key's secret begins, by kind: the prefix says what the key may do before it is looked up. */
export const KEY_PREFIXES: Record<KeyKind, string> = { secret: 'ak_', publishable: 'pk_' };

export function kindOfKey(key: string): KeyKind | null {
  if (key.startsWith(KEY_PREFIXES.secret)) return 'secret';
  if (key.startsWith(KEY_PREFIXES.publishable)) return 'publishable';
  return null;
}

const ORIGIN_CHARS = 255;

/**
 * The origins of a new key, checked: a publishable key names 1 to 50 origins, each exactly as a browser sends it
 * in `Origin` (`https://shop.example`, `http://localhost:8080`: scheme http or https, lowercase host, no default
 * port, no path, no trailing slash); a secret key names none. 422 at `origins` or `origins.<i>` otherwise.
 */
export function checkOrigins(kind: KeyKind, origins: unknown[] | undefined): string[] {
  if (kind === 'secret') {
    if (origins !== undefined && origins.length > 0) throw ServiceError.invalidField('origins', 'The origins field is taken by publishable keys only.');
    return [];
  }
  if (!origins || origins.length === 0) throw ServiceError.invalidField('origins', 'The origins field is required for a publishable key: name at least one origin.');
  const errors: FieldErrors = {};
  origins.forEach((value, i) => {
    if (!isOrigin(value)) {
      errors[`origins.${i}`] = [
        `The origins.${i} field must be an origin as browsers send it: scheme://host[:port], e.g. https://shop.example (lowercase, no path, no default port).`,
      ];
    }
  });
  if (Object.keys(errors).length) throw ServiceError.validation(errors);
  return [...new Set(origins as string[])];
}

/** Whether a value is a serialized http(s) origin, byte for byte the way a browser writes it. */
export function isOrigin(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > ORIGIN_CHARS) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
}

/** Marks a /v1 route a publishable key may use; every other route answers such a key 403. */
export const PUBLISHABLE_ROUTE = 'askdata:publishable';
export const ForPublishableKeys = (): MethodDecorator =>
  applyDecorators(
    SetMetadata(PUBLISHABLE_ROUTE, true),
    ApiHeader({
      name: 'Askdata-Session',
      required: false,
      description:
        "Extension: open to publishable keys (`pk_`, from an Origin the key allows). With one, the session token from POST /v1/sessions (required in a multi-tenant project): the tenant, the user and the collections are then the session's, and only chats of the same session user can be read or continued.",
    }),
  );
