import { apiError, ApiError, AskdataError, ConnectionError, ErrorBody, retryAfterMs, TimeoutError } from './errors.js';
import { sleep } from './sleep.js';

/** The header that carries a session token (with a publishable key). One name, used everywhere. */
export const SESSION_HEADER = 'Askdata-Session';
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

export interface ClientOptions {
  /** The service's address, e.g. `https://askdata.example.com` (a trailing `/v1` is accepted). */
  baseUrl: string;
  /** The project's API key, sent as `Api-Key`. */
  apiKey: string;
  /** A session token, sent in the `Askdata-Session` header. */
  sessionToken?: string;
  /** Longest a call may take, its retries and their waits included; default 120000 (questions take up to 60 s). */
  timeoutMs?: number;
  /** Further attempts after a 429 or a 503 (or a lost connection, when the call is safe to repeat); default 2. */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once. Default 60000. */
  maxRetryDelayMs?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
}

/** Per-call settings. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** Overrides the key the client generates for a POST or DELETE that does work (retries reuse it). */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/** One API call: `path` is relative to /v1, its ids already encoded. */
export interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Query parameters: its string and number members (the typed parameters of a list). */
  query?: object;
  body?: unknown;
  /** Sends an Idempotency-Key, so that a retry never does the work twice. */
  keyed?: boolean;
  /** Repeating it changes nothing (reads, searches): retried after a lost connection too. */
  safe?: boolean;
  /** Asks for Server-Sent Events. */
  stream?: boolean;
}

/** A response with a good status, and `release` to call once its body is read (it ends the call's timer). */
export interface Sent {
  response: Response;
  signal: AbortSignal;
  release: () => void;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;
const BACKOFF_BASE_MS = 500;

export class Transport {
  private readonly base: string;

  constructor(private readonly options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    this.base = `${options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
  }

  /** A JSON call: the parsed body of a success, or the typed ApiError of a failure. */
  async json<T>(call: Call, options: RequestOptions = {}): Promise<T> {
    const { response, release } = await this.send(call, options);
    try {
      return parseJson<T>(await response.text(), `${call.method} ${call.path} answered ${response.status}`);
    } finally {
      release();
    }
  }

  /** Sends the call, retrying 429 and 503 (honouring Retry-After) within the attempts and the time it has. */
  async send(call: Call, options: RequestOptions = {}): Promise<Sent> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? this.options.maxRetries ?? DEFAULT_RETRIES;
    const deadline = Date.now() + timeoutMs;
    const { signal, release } = linkSignals(options.signal, timeoutMs);
    const init: RequestInit = { method: call.method, headers: this.headers(call, options), signal };
    if (call.body !== undefined) init.body = JSON.stringify(call.body);
    const url = this.url(call);
    const doFetch = this.options.fetch ?? globalThis.fetch;
    try {
      for (let attempt = 0; ; attempt++) {
        let response: Response;
        try {
          response = await doFetch(url, init);
        } catch (e) {
          if (signal.aborted) throw signal.reason;
          const wait = backoffMs(attempt);
          if (!(call.safe || call.keyed) || attempt >= maxRetries || Date.now() + wait >= deadline)
            throw new ConnectionError(`${call.method} ${url} failed: ${String(e)}`, { cause: e });
          await sleep(wait, signal);
          continue;
        }
        if (response.ok) return { response, signal, release };
        const error = await errorOf(response);
        const wait = this.retryWait(call, error, attempt, maxRetries);
        if (wait === null || Date.now() + wait >= deadline) throw error;
        await sleep(wait, signal);
      }
    } catch (e) {
      release();
      throw e;
    }
  }

  /** How long to wait before the next attempt after `error`, or null when it is not retried. */
  private retryWait(call: Call, error: ApiError, attempt: number, maxRetries: number): number | null {
    const hinted = retryAfterMs(error.headers.get('retry-after'), Date.now());
    // 409 with Retry-After: this call's own earlier attempt, with the same Idempotency-Key, is still running.
    const retryable = error.status === 429 || error.status === 503 || (error.status === 409 && call.keyed === true && hinted !== null);
    if (!retryable || attempt >= maxRetries) return null;
    const wait = hinted ?? backoffMs(attempt);
    return wait > (this.options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS) ? null : wait;
  }

  private url(call: Call): string {
    const params = Object.entries(call.query ?? {}).filter((e): e is [string, string | number] => typeof e[1] === 'string' || typeof e[1] === 'number');
    const search = new URLSearchParams(params.map(([k, v]): [string, string] => [k, String(v)])).toString();
    return `${this.base}${call.path}${search ? `?${search}` : ''}`;
  }

  private headers(call: Call, options: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers, 'Api-Key': this.options.apiKey, Accept: call.stream ? 'text/event-stream' : 'application/json' };
    if (this.options.sessionToken !== undefined) headers[SESSION_HEADER] = this.options.sessionToken;
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    if (call.keyed) headers[IDEMPOTENCY_HEADER] = options.idempotencyKey ?? newKey();
    return { ...headers, ...options.headers };
  }
}

/** A JSON body; one that is not JSON (a proxy's page) is an AskdataError naming what answered it. */
export function parseJson<T>(text: string, what: string): T {
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new AskdataError(`${what} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: ErrorBody = { message: text || `HTTP ${response.status}` };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as ErrorBody).message === 'string') body = parsed as ErrorBody;
  } catch {
    // Not JSON (a proxy's page): the text is the message.
  }
  return apiError(response.status, body, response.headers);
}

/** Exponential backoff with jitter, for a retry the response gave no Retry-After for. */
function backoffMs(attempt: number): number {
  return Math.round(BACKOFF_BASE_MS * 2 ** attempt * (0.5 + Math.random() / 2));
}

/** One signal that aborts when the caller's does (with its reason) or when `timeoutMs` is up (with a TimeoutError). */
function linkSignals(outer: AbortSignal | undefined, timeoutMs: number): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new TimeoutError(`the request took longer than ${timeoutMs} ms`)), timeoutMs);
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** A UUID: crypto.randomUUID where the platform has it (Node, secure browser contexts), else from random bytes. */
function newKey(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
