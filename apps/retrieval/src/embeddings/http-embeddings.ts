import { Logger } from '@nestjs/common';
import { ServiceError } from '@askdata/common';
import { EmbeddingProvider } from './embedding-provider';

export interface HttpEmbeddingOptions {
  /** Base URL; requests go to `${url}/embeddings`. */
  url: string;
  model: string;
  apiKey: string | undefined;
  /** Vector size to ask the model for and to expect; null: whatever the model returns. */
  dimensions: number | null;
  batchSize: number;
  timeoutMs: number;
  /** Further attempts after a 429, a 5xx, a timeout or a network error. */
  retries: number;
  /** First backoff; it doubles with every retry (with jitter), and a Retry-After header is honoured. */
  backoffMs: number;
}

const MAX_BACKOFF_MS = 30000;
const logger = new Logger('Embeddings');

/**
 * An embeddings API over HTTP: texts go in batches of `batchSize`, one request after the other; the wire format
 * of a request is the provider's, the answer is `{data: [{embedding, index}]}` for both OpenAI and Voyage AI.
 */
export class HttpEmbeddings implements EmbeddingProvider {
  constructor(
    readonly name: string,
    private readonly options: HttpEmbeddingOptions,
    private readonly body: (input: string[], kind: 'document' | 'query') => Record<string, unknown>,
  ) {}

  get model(): string {
    return this.options.model;
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.embed(texts, 'document');
  }

  async embedQuery(text: string): Promise<number[]> {
    const [v] = await this.embed([text], 'query');
    return v;
  }

  private async embed(texts: string[], kind: 'document' | 'query'): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      const batch = texts.slice(i, i + this.options.batchSize);
      const answer = await postEmbeddingRequest(this.name, this.options, this.body(batch, kind));
      out.push(...vectorsOf(this.name, this.options, answer, batch.length));
    }
    return out;
  }
}

/**
 * POSTs a JSON body to an embeddings API with a timeout per attempt, retrying 429, 5xx, timeouts and network
 * errors with exponential backoff. Other statuses fail at once. Every failure is UNAVAILABLE.
 */
export async function postEmbeddingRequest(provider: string, options: HttpEmbeddingOptions, body: unknown): Promise<unknown> {
  const url = `${options.url}/embeddings`;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    let retryAfterMs: number | null = null;
    try {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(options.timeoutMs) });
      const text = await res.text();
      if (res.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw failure(provider, `${url} answered ${res.status} with a body that is not JSON`);
        }
      }
      reason = `${url} answered ${res.status}${text ? `: ${excerpt(text)}` : ''}`;
      if (res.status !== 429 && res.status < 500) throw failure(provider, reason);
      retryAfterMs = retryAfter(res.headers.get('retry-after'));
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      const err = e as Error & { cause?: { code?: string; message?: string } };
      reason =
        err.name === 'TimeoutError' || err.name === 'AbortError'
          ? `${url} did not answer within ${options.timeoutMs} ms`
          : `${url} is unreachable (${err.cause?.code ?? err.cause?.message ?? err.message})`;
    }
    if (attempt >= options.retries) {
      throw failure(provider, `${reason} (${attempt + 1} attempt${attempt === 0 ? '' : 's'})`);
    }
    const backoff = Math.min(MAX_BACKOFF_MS, retryAfterMs ?? options.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2));
    logger.warn(`${provider} embeddings: ${reason}; retrying in ${Math.round(backoff)} ms`);
    await new Promise((r) => setTimeout(r, backoff));
  }
}

/** The vectors of an OpenAI-style answer (`data[].embedding`, `data[].index`), in input order, checked. */
function vectorsOf(provider: string, options: HttpEmbeddingOptions, body: unknown, expected: number): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw failure(provider, `expected ${expected} embeddings in "data", got ${Array.isArray(data) ? data.length : 'none'}`);
  }
  const vectors: number[][] = new Array<number[]>(expected);
  data.forEach((entry: { embedding?: unknown; index?: unknown }, position) => {
    const index = typeof entry?.index === 'number' ? entry.index : position;
    const v = entry?.embedding;
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw failure(provider, `embedding ${index} is not an array of numbers`);
    }
    if (!Number.isInteger(index) || index < 0 || index >= expected || vectors[index]) {
      throw failure(provider, `embedding index ${String(index)} is out of range or repeated`);
    }
    if (options.dimensions !== null && v.length !== options.dimensions) {
      throw failure(provider, `the model returned ${v.length} dimensions, EMBEDDING_DIMENSIONS is ${options.dimensions}`);
    }
    vectors[index] = v as number[];
  });
  const size = vectors[0].length;
  if (vectors.some((v) => v.length !== size)) throw failure(provider, 'the model returned vectors of different sizes');
  return vectors;
}

function failure(provider: string, reason: string): ServiceError {
  return ServiceError.unavailable(`The embedding provider (${provider}) failed: ${reason}.`);
}

function retryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
}
