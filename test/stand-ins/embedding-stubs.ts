import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { analyze } from '@askdata/common';
import { termIndex } from '../../apps/retrieval/src/index/sparse-vectors';
import { readBody } from './http-body';

/**
 * Local stand-ins for the embeddings APIs: OpenAI's `POST /v1/embeddings` (which Ollama, vLLM and TEI also
 * speak) and Voyage AI's `POST /v1/embeddings`, with their request checks and error shapes. Embeddings are
 * deterministic: a hashed bag of the analyzed words, normalised, so texts sharing words are near and texts
 * sharing none are orthogonal. Failures (429, 5xx, a hanging answer) can be asked for, to test retries and
 * timeouts. Refused requests are kept in {@link EmbeddingStub.problems} for tests to assert on.
 */
export type EmbeddingApi = 'openai' | 'voyage';

export interface EmbeddingStubOptions {
  /** Vector size when the request asks for none. Default 64. */
  dimensions?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Answer with `dimensions` whatever the request asks for, as models with a fixed size do (Ollama). */
  ignoreRequestedDimensions?: boolean;
  /** Largest number of inputs accepted in one request (OpenAI 2048, Voyage 1000). */
  maxBatch?: number;
  port?: number;
  host?: string;
  /** Keep the bodies served in {@link EmbeddingStub.served} (default true). */
  keepRequests?: boolean;
  /** Called with each problem as it happens. */
  onProblem?: (problem: string) => void;
}

export interface EmbeddingStub {
  kind: EmbeddingApi;
  /** Base URL, to be used as EMBEDDING_URL (requests go to `${url}/embeddings`). */
  url: string;
  /** Bodies of the requests answered with embeddings, in order. */
  served: Array<Record<string, unknown>>;
  /** Number of requests received, whatever the answer. */
  received(): number;
  problems(): string[];
  /** The next `times` requests fail with `status` (and a Retry-After header when `retryAfterSeconds` is given). */
  failNext(status: number, times?: number, retryAfterSeconds?: number): void;
  /** The next `times` requests are answered only after `ms` milliseconds. */
  delayNext(ms: number, times?: number): void;
  close(): Promise<void>;
}

/** The stand-in embedding of a text: words hashed into `dimensions` buckets, L2-normalised. */
export function stubEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const term of analyze(text)) v[termIndex(term) % dimensions] += 1;
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

export async function startEmbeddingStub(kind: EmbeddingApi, options: EmbeddingStubOptions = {}): Promise<EmbeddingStub> {
  const served: Array<Record<string, unknown>> = [];
  const problems: string[] = [];
  let received = 0;
  let failures: { status: number; times: number; retryAfter?: number } | null = null;
  let delays: { ms: number; times: number } | null = null;
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    received++;
    const raw = await readBody(req);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const refuse = (status: number, message: string) => {
      problems.push(`${req.method} ${req.url} -> ${status}: ${message}`);
      options.onProblem?.(problems[problems.length - 1]);
      send(status, kind === 'openai' ? { error: { message, type: 'invalid_request_error', param: null, code: null } } : { detail: message });
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return refuse(404, `no route ${req.method} ${req.url}`);
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return refuse(401, 'Incorrect API key provided.');
    if (failures && failures.times > 0) {
      failures.times--;
      const headers: Record<string, string> = failures.retryAfter !== undefined ? { 'retry-after': String(failures.retryAfter) } : {};
      const message = failures.status === 429 ? 'Rate limit reached.' : 'The server had an error while processing your request.';
      return send(failures.status, kind === 'openai' ? { error: { message, type: 'server_error', param: null, code: null } } : { detail: message }, headers);
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return refuse(400, 'The body is not valid JSON.');
    }
    const problem = (kind === 'openai' ? openAiProblem : voyageProblem)(body, options.maxBatch ?? (kind === 'openai' ? 2048 : 1000));
    if (problem) return refuse(400, problem);
    const input = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
    const requested = options.ignoreRequestedDimensions ? undefined : (body.dimensions ?? body.output_dimension);
    const size = (requested ?? options.dimensions ?? 64) as number;
    const answer = {
      object: 'list',
      data: input.map((text, index) => ({ object: 'embedding', index, embedding: stubEmbedding(text, size) })),
      model: body.model,
      usage: kind === 'openai' ? { prompt_tokens: input.join(' ').length, total_tokens: input.join(' ').length } : { total_tokens: input.join(' ').length },
    };
    if (options.keepRequests !== false) served.push(body);
    if (delays && delays.times > 0) {
      delays.times--;
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) send(200, answer);
      }, delays.ms);
      timers.add(timer);
      return;
    }
    send(200, answer);
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    kind,
    url: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
    served,
    received: () => received,
    problems: () => [...problems],
    failNext(status, times = 1, retryAfterSeconds) {
      failures = { status, times, retryAfter: retryAfterSeconds };
    },
    delayNext(ms, times = 1) {
      delays = { ms, times };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isText = (v: unknown) => typeof v === 'string' && v.length > 0;

/** OpenAI's checks of an embeddings request. */
function openAiProblem(body: Record<string, unknown>, maxBatch: number): string | null {
  const known = ['model', 'input', 'dimensions', 'encoding_format', 'user'];
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length) return `Unrecognized request argument supplied: ${unknown.join(', ')}`;
  if (!isText(body.model)) return "'model' is a required property";
  return (
    inputProblem(body.input, maxBatch) ??
    sizeProblem(body.dimensions, 'dimensions') ??
    (body.encoding_format !== undefined && !['float', 'base64'].includes(body.encoding_format as string) ? "'encoding_format' must be float or base64" : null)
  );
}

/** Voyage AI's checks of an embeddings request. */
function voyageProblem(body: Record<string, unknown>, maxBatch: number): string | null {
  const known = ['input', 'model', 'input_type', 'truncation', 'output_dimension', 'output_dtype', 'encoding_format'];
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length) return `Unexpected field(s): ${unknown.join(', ')}`;
  if (!isText(body.model)) return 'model: field required';
  if (body.input_type !== undefined && body.input_type !== null && !['query', 'document'].includes(body.input_type as string)) {
    return "input_type: must be null, 'query' or 'document'";
  }
  if (body.truncation !== undefined && typeof body.truncation !== 'boolean') return 'truncation: must be a boolean';
  return inputProblem(body.input, maxBatch) ?? sizeProblem(body.output_dimension, 'output_dimension');
}

function inputProblem(input: unknown, maxBatch: number): string | null {
  if (isText(input)) return null;
  if (!Array.isArray(input) || input.length === 0 || !input.every(isText)) return "'input' must be a non-empty string or a non-empty array of non-empty strings";
  if (input.length > maxBatch) return `'input' has ${input.length} texts; at most ${maxBatch} are allowed`;
  return null;
}

function sizeProblem(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  return Number.isInteger(value) && (value as number) > 0 ? null : `'${name}' must be a positive integer`;
}
