import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Request and response checks from Qdrant's own OpenAPI document (v1.19.0, vendored next to this file): the
 * schema of each operation's body and query parameters, with `$ref`s to components/schemas resolved by Ajv.
 *
 * OpenAPI 3.0 is not quite JSON Schema, so the schemas are translated: `nullable` becomes a `null` type, and the
 * integer and float formats (uint32, uint64, float, ...) check their ranges. One deliberate strictness: an object
 * schema that names its properties admits no others. Qdrant ignores most unknown fields, so a misspelt option
 * (`modifer: 'idf'`) would silently do nothing there; here it is a 400.
 */
const SPEC_FILE = 'qdrant-openapi-v1.19.0.json';
const REF_PREFIX = '#/components/schemas/';
const ID = 'qdrant';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

interface OpenApiOperation {
  operationId: string;
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: JsonObject }>;
  requestBody?: { content: Record<string, { schema: JsonObject }> };
  responses: Record<string, { content?: Record<string, { schema: JsonObject }> }>;
}

export interface OperationChecks {
  operationId: string;
  method: string;
  /** The path template, e.g. `/collections/{collection_name}/points/query`. */
  path: string;
  pattern: RegExp;
  pathParams: string[];
  body: ValidateFunction | null;
  query: Map<string, ValidateFunction>;
  /** Checks a 200 answer (JSON bodies only). */
  response: ValidateFunction | null;
}

function specPath(): string {
  const candidates = [join(__dirname, SPEC_FILE), join(__dirname, '..', '..', '..', 'test', 'stand-ins', SPEC_FILE)];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`${SPEC_FILE} not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** Translates an OpenAPI 3.0 schema into JSON Schema for Ajv (see the module comment). */
function translate(node: Json, parentKey = ''): Json {
  if (Array.isArray(node)) return node.map((n) => translate(n));
  if (node === null || typeof node !== 'object') return node;
  if (parentKey === 'properties') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, translate(v)]));
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'deprecated' || k === 'nullable') continue;
    if (k === '$ref' && typeof v === 'string') out.$ref = v.replace(REF_PREFIX, `${ID}#/definitions/`);
    else out[k] = k === 'enum' || k === 'required' ? v : translate(v, k);
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  if (node.nullable !== true) return out;
  if (out.type !== undefined) {
    out.type = [...(Array.isArray(out.type) ? out.type : [out.type]), 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  const { description, default: _default, ...rest } = out;
  void description;
  void _default;
  return Object.keys(rest).length ? { anyOf: [rest, { type: 'null' }] } : { type: 'null' };
}

const numberFormats: Record<string, (n: number) => boolean> = {
  uint: (n) => Number.isInteger(n) && n >= 0,
  uint8: (n) => Number.isInteger(n) && n >= 0 && n <= 255,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff,
  uint64: (n) => Number.isInteger(n) && n >= 0,
  int64: (n) => Number.isInteger(n),
  float: (n) => Number.isFinite(n) && Math.abs(n) <= 3.4028234663852886e38,
  double: (n) => Number.isFinite(n),
};

let cached: OperationChecks[] | null = null;

/** Every operation of the document, with its validators (compiled lazily, once per process). */
export function qdrantOperations(): OperationChecks[] {
  if (cached) return cached;
  const spec = JSON.parse(readFileSync(specPath(), 'utf8')) as {
    paths: Record<string, Record<string, OpenApiOperation>>;
    components: { schemas: JsonObject };
  };
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const [name, check] of Object.entries(numberFormats)) ajv.addFormat(name, { type: 'number', validate: check });
  ajv.addFormat('partial-date-time', true);
  const definitions = Object.fromEntries(Object.entries(spec.components.schemas).map(([k, v]) => [k, translate(v)]));
  ajv.addSchema({ $id: ID, definitions });
  const compile = (schema: JsonObject | undefined) => (schema ? ajv.compile(translate(schema) as object) : null);
  const ops: OperationChecks[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const pattern = new RegExp(
        `^${path
          .split(/\{\w+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('([^/]+)')}$`,
      );
      let body: ValidateFunction | null | undefined;
      let response: ValidateFunction | null | undefined;
      let query: Map<string, ValidateFunction> | undefined;
      ops.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        pattern,
        pathParams,
        get body() {
          return (body ??= compile(op.requestBody?.content['application/json']?.schema));
        },
        get response() {
          return (response ??= compile(op.responses['200']?.content?.['application/json']?.schema));
        },
        get query() {
          return (query ??= new Map((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, ajv.compile(translate(p.schema) as object)])));
        },
      });
    }
  }
  // Literal paths first, so that /collections/aliases is not read as /collections/{collection_name}.
  cached = ops.sort((a, b) => a.pathParams.length - b.pathParams.length);
  return cached;
}

/** The first few problems of a failed validation, one line each, as Qdrant words its format errors. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  // The deepest problems say most: a failed anyOf also reports every branch that did not fit at the top.
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  const lines = [...(errors ?? [])]
    .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf')
    .sort((a, b) => depth(b) - depth(a))
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : ''}`);
  return lines.join('; ') || 'invalid';
}

/** A query-string value as Qdrant's parser sees it: numbers and booleans are typed, anything else is a string. */
export function queryValue(raw: string): unknown {
  if (/^(true|false)$/.test(raw)) return raw === 'true';
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
}
