import { FieldErrors } from '@askdata/contracts';
import type { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import querystring from 'node:querystring';

/**
 * The value of a query parameter that is not valid percent-encoded UTF-8 (`%FF`, `%ED%A0%80`, `%ZZ`). Node's parser
 * would turn it into U+FFFD or keep it as written: another value than the one the client meant, which could match (or
 * delete) something else. It is kept as this instead, and refused by `queryShape`.
 */
export const UNDECODABLE = Symbol('undecodable');

function decodes(part: string): boolean {
  try {
    decodeURIComponent(part.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

/**
 * Express's query parser (`simple`: Node's `querystring`), but a parameter whose name or value does not decode is
 * {@link UNDECODABLE}. Express gives null for a URL without a query string.
 */
export function parseQuery(query: string | null): Record<string, unknown> {
  if (!query) return {};
  const parsed: Record<string, unknown> = querystring.parse(query);
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (!decodes(name) || (eq >= 0 && !decodes(pair.slice(eq + 1)))) parsed[querystring.unescape(name.replace(/\+/g, ' '))] = UNDECODABLE;
  }
  return parsed;
}

/** The parameters a query DTO declares (every property with a validation rule, inherited ones included). */
const known = new WeakMap<Type, Set<string>>();
function parametersOf(dto: Type): Set<string> {
  let names = known.get(dto);
  if (!names) {
    names = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((m) => m.propertyName),
    );
    known.set(dto, names);
  }
  return names;
}

/**
 * Query parameters that are not one plain value of a parameter the route knows. Express's query parser keeps
 * `collection[]=x` and `collection[$ne]=x` as keys of their own and a repeated parameter as an array: each is refused
 * here, named by its parameter, rather than ignored (an ignored filter answers the unfiltered list). Returns the
 * errors and the query without the refused keys.
 */
export function queryShape(dto: Type, query: Record<string, unknown>): { errors: FieldErrors; rest: Record<string, unknown> } {
  const names = parametersOf(dto);
  const errors: FieldErrors = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const bracket = key.indexOf('[');
    const name = bracket > 0 ? key.slice(0, bracket) : key;
    if (!names.has(name)) {
      errors[name] = [`The ${name} query parameter is not supported.`];
    } else if (value === UNDECODABLE) {
      errors[name] = [`The ${name} query parameter must be percent-encoded UTF-8 text.`];
    } else if (bracket > 0 || typeof value !== 'string') {
      errors[name] = [`The ${name} query parameter must be given once, as a plain value.`];
    } else rest[key] = value;
  }
  return { errors, rest };
}
