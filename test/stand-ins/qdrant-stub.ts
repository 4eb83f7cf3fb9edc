import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Body, Conflict, NotFound, QdrantEngine, StoredPoint, Unsupported, WrongInput } from './qdrant-engine';
import { describeErrors, OperationChecks, qdrantOperations, queryValue } from './qdrant-openapi';
import { readBody } from './http-body';

/**
 * A local stand-in for Qdrant's REST API, for tests and for running the service by hand: the operations the
 * retrieval service uses, over the in-memory {@link QdrantEngine}.
 *
 * Every request is checked against the schema of its operation in Qdrant's OpenAPI document (body and query
 * parameters) and refused with 400 as Qdrant would when it does not fit; every answer is checked against the
 * document too. Refused requests, and requests the stand-in cannot answer faithfully (501), are kept in
 * {@link QdrantStub.problems}: tests assert it is empty, so a request real Qdrant would refuse fails the test
 * even when the code under test swallows the error.
 */
export interface QdrantStubOptions {
  /** When set, requests must carry it in the `api-key` header (or as a bearer token). */
  apiKey?: string;
  port?: number;
  host?: string;
  /** Keep every request in {@link QdrantStub.requests} (default true; a long manual run may not want to). */
  keepRequests?: boolean;
  /** Called with each problem as it happens. */
  onProblem?: (problem: string) => void;
}

export interface RecordedRequest {
  method: string;
  path: string;
  operationId: string | null;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

export interface QdrantStub {
  url: string;
  engine: QdrantEngine;
  /** Every request, in order. */
  requests: RecordedRequest[];
  /** Requests refused as invalid (400, 401, 422) or not answerable by the stand-in (501), and invalid answers. */
  problems(): string[];
  /** The next `times` requests (health and version checks excluded) fail with `status`. */
  failNext(status: number, times?: number): void;
  /** The points of a collection, for assertions. */
  points(collection: string): StoredPoint[];
  close(): Promise<void>;
}

const HANDLED = new Set([
  'root',
  'healthz',
  'livez',
  'readyz',
  'get_collections',
  'get_collection',
  'collection_exists',
  'create_collection',
  'delete_collection',
  'create_field_index',
  'upsert_points',
  'delete_points',
  'query_points',
  'query_points_groups',
  'scroll_points',
  'count_points',
]);

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A failure the test asked for, not a problem of the request. */
    readonly injected = false,
  ) {
    super(message);
  }
}

export async function startQdrantStub(options: QdrantStubOptions = {}): Promise<QdrantStub> {
  const engine = new QdrantEngine();
  const operations = qdrantOperations();
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  let failures: { status: number; times: number } | null = null;

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? '/', 'http://stub');
    const record: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, operationId: null, query: Object.fromEntries(url.searchParams), body: undefined, status: 0 };
    if (options.keepRequests !== false) requests.push(record);
    const send = (status: number, body: unknown, text = false) => {
      record.status = status;
      const payload = text ? String(body) : JSON.stringify(body);
      res.writeHead(status, { 'content-type': text ? 'text/plain' : 'application/json' });
      res.end(payload);
    };
    const time = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const raw = await readBody(req);
      const op = operations.find((o) => o.method === record.method && o.pattern.test(url.pathname));
      if (!op) throw new HttpError(404, `Not found: ${record.method} ${url.pathname}`);
      record.operationId = op.operationId;
      const params = Object.fromEntries(op.pathParams.map((name, i) => [name, decodeURIComponent(op.pattern.exec(url.pathname)![i + 1])]));
      if (!['root', 'healthz', 'livez', 'readyz'].includes(op.operationId)) {
        if (options.apiKey && !authorised(req, options.apiKey)) throw new HttpError(401, 'Must provide an API key or an Authorization bearer token');
        if (failures && failures.times > 0) {
          failures.times--;
          throw new HttpError(failures.status, 'Service internal error: failure injected by the test', true);
        }
      }
      record.body = raw === '' ? undefined : parseJson(raw);
      checkRequest(op, url.searchParams, record.body);
      if (!HANDLED.has(op.operationId)) throw new Unsupported(`operation ${op.operationId}`);
      const result = run(op.operationId, params.collection_name, record.body);
      if (op.operationId === 'root') return send(200, result);
      if (typeof result === 'string') return send(200, result, true);
      const answer = { result, status: 'ok', time: time() };
      if (op.response && !op.response(answer)) {
        throw new Unsupported(`answer of ${op.operationId} does not fit the document: ${describeErrors(op.response.errors)}`);
      }
      send(200, answer);
    } catch (e) {
      const status =
        e instanceof HttpError ? e.status : e instanceof WrongInput ? 400 : e instanceof NotFound ? 404 : e instanceof Conflict ? 409 : e instanceof Unsupported ? 501 : 500;
      const prefix = e instanceof WrongInput ? 'Wrong input: ' : e instanceof NotFound ? 'Not found: ' : e instanceof Unsupported ? 'Not implemented by the stand-in: ' : '';
      const message = `${prefix}${(e as Error).message}`;
      if (status !== 404 && status !== 409 && !(e instanceof HttpError && e.injected)) {
        problems.push(`${record.method} ${url.pathname} -> ${status}: ${message}`);
        options.onProblem?.(problems[problems.length - 1]);
      }
      send(status, { status: { error: message }, time: time() });
    }
  }

  function checkRequest(op: OperationChecks, search: URLSearchParams, body: unknown): void {
    for (const [name, raw] of search) {
      const check = op.query.get(name);
      if (!check) throw new HttpError(400, `Query deserialize error: unknown field \`${name}\``);
      if (!check(queryValue(raw))) throw new HttpError(400, `Query deserialize error: ${name}: ${describeErrors(check.errors)}`);
    }
    if (op.body) {
      if (body === undefined) throw new HttpError(400, 'Json payload error: a body is required');
      if (!op.body(body)) throw new HttpError(400, `Format error in JSON body: ${describeErrors(op.body.errors)}`);
    } else if (body !== undefined) {
      throw new HttpError(400, `${op.operationId} takes no body`);
    }
  }

  function run(operation: string, name: string, body: Body): unknown {
    switch (operation) {
      case 'root':
        return { title: 'qdrant - vector search engine', version: '1.19.0' };
      case 'healthz':
      case 'livez':
        return `${operation} check passed`;
      case 'readyz':
        return 'all shards are ready';
      case 'get_collections':
        return { collections: [...engine.collections.keys()].map((n) => ({ name: n })) };
      case 'collection_exists':
        return { exists: engine.collections.has(name) };
      case 'get_collection':
        return engine.info(engine.get(name));
      case 'create_collection':
        engine.create(name, body);
        return true;
      case 'delete_collection':
        return engine.collections.delete(name);
      case 'create_field_index':
        engine.createIndex(engine.get(name), body);
        return { operation_id: 0, status: 'completed' };
      case 'upsert_points':
        return { operation_id: engine.upsert(engine.get(name), body), status: 'completed' };
      case 'delete_points':
        return { operation_id: engine.delete(engine.get(name), body), status: 'completed' };
      case 'scroll_points': {
        const page = engine.scroll(engine.get(name), body);
        return {
          points: page.points.map((p) => {
            const payload = selectPayload(p.payload, body.with_payload ?? true);
            return { id: p.id, ...(payload ? { payload } : {}) };
          }),
          next_page_offset: page.next,
        };
      }
      case 'count_points':
        return { count: engine.count(engine.get(name), body) };
      case 'query_points':
        return { points: engine.query(engine.get(name), body).map((s) => scored(s, body.with_payload)) };
      case 'query_points_groups':
        return { groups: engine.groups(engine.get(name), body).map((g) => ({ id: g.id, hits: g.hits.map((s) => scored(s, body.with_payload)) })) };
      default:
        throw new Unsupported(`operation ${operation}`);
    }
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    engine,
    requests,
    problems: () => [...problems],
    failNext(status, times = 1) {
      failures = { status, times };
    },
    points: (collection) => [...(engine.collections.get(collection)?.points.values() ?? [])],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function scored(s: { point: StoredPoint; score: number }, withPayload: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { id: s.point.id, version: s.point.version, score: s.score };
  const payload = selectPayload(s.point.payload, withPayload);
  if (payload) out.payload = payload;
  return out;
}

function selectPayload(payload: Record<string, unknown>, selector: unknown): Record<string, unknown> | null {
  if (selector === true) return payload;
  if (!selector) return null;
  const pick = (keys: string[], keep: boolean) => Object.fromEntries(Object.entries(payload).filter(([k]) => keys.includes(k) === keep));
  if (Array.isArray(selector)) return pick(selector as string[], true);
  const s = selector as { include?: string[]; exclude?: string[] };
  return s.include ? pick(s.include, true) : pick(s.exclude ?? [], false);
}

function authorised(req: IncomingMessage, key: string): boolean {
  return req.headers['api-key'] === key || req.headers.authorization === `Bearer ${key}`;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (e) {
    throw new HttpError(400, `Json deserialize error: ${(e as Error).message}`);
  }
}
