import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import type { ClaudeSettings } from '../../apps/conversation/src/claude/claude.client';
import { StreamFault, writeMessageStream } from './message-stream';

/**
 * A local server speaking the subset of Anthropic's Messages API the service uses (POST /v1/messages,
 * GET /v1/models/{id}), for tests. It checks each request against the documented shape and answers 400 as the API
 * does when it is wrong (an empty turn, roles out of turn, an input over the context window), records it, and
 * answers with scripted replies (whole, or streamed as Server-Sent Events when the request says `stream`, see
 * `message-stream.ts`): text with `search_result_location` citations and any `stop_reason` (`max_tokens`,
 * `refusal`), empty content, slowly, API errors, a body that is not JSON, or silence. It serves every model unless
 * told which ones it knows, and reports prompt-cache reads and writes as the API does: a prefix up to a
 * `cache_control` breakpoint, once long enough, is written, and read back by a later request that starts with it.
 */
export type Reply =
  | { kind: 'answer'; blocks: Array<{ text: string; cite?: number[] }>; stop_reason?: StopReason; delayMs?: number; fault?: StreamFault }
  | { kind: 'error'; status: 400 | 401 | 404 | 429 | 500 | 529; type?: string; message?: string }
  | { kind: 'malformed' }
  | { kind: 'hang' };

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'model_context_window_exceeded';

export interface Recorded {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Size of the request body in bytes. */
  bytes: number;
  problems: string[];
}

export interface StubOptions {
  /** Largest input the models take, in tokens as the stub counts them ({@link countTokens}). */
  contextTokens?: number;
  /** Shortest prefix the prompt cache takes, in tokens. */
  minCacheTokens?: number;
}

export class MessagesApiStub {
  readonly requests: Recorded[] = [];
  /** Model ids looked up with `GET /v1/models/{id}` (readiness), apart from the Messages requests. */
  readonly modelLookups: string[] = [];
  private readonly script: Reply[] = [];
  private fallback: Reply = { kind: 'answer', blocks: [{ text: 'ok' }] };
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Models served; every model when null. */
  private known: Set<string> | null = null;
  /** Prompt prefixes written to the cache, with their size in tokens. */
  private readonly cache = new Map<string, number>();
  private readonly contextTokens: number;
  private readonly minCacheTokens: number;

  constructor(options: StubOptions = {}) {
    this.contextTokens = options.contextTokens ?? 200000;
    this.minCacheTokens = options.minCacheTokens ?? 1024;
  }

  /** Replies used in order, one per request; then `otherwise`. */
  enqueue(...replies: Reply[]): this {
    this.script.push(...replies);
    return this;
  }

  otherwise(reply: Reply): this {
    this.fallback = reply;
    return this;
  }

  /** Responses held open (silent or stalled) and not yet closed by either side. */
  get open(): number {
    return this.hanging.size;
  }

  /** Forgets the replies not used yet and answers "ok" again. */
  reset(): this {
    this.script.length = 0;
    this.fallback = { kind: 'answer', blocks: [{ text: 'ok' }] };
    return this;
  }

  /** Serves only these models: any other is unknown (404), as a retired one is. */
  serveOnly(...models: string[]): this {
    this.known = new Set(models);
    return this;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private serves(model: unknown): boolean {
    return typeof model === 'string' && (this.known === null || this.known.has(model));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url?.split('?')[0] ?? '';
    if (req.method === 'GET' && path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      this.modelLookups.push(id);
      if (!this.serves(id)) return send(res, 404, apiError('not_found_error', `model: ${id}`));
      return send(res, 200, { type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' });
    }
    if (req.method !== 'POST' || path !== '/v1/messages') return send(res, 404, apiError('not_found_error', 'Not found'));
    const raw = Buffer.concat(chunks);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(res, 400, apiError('invalid_request_error', 'Invalid JSON'));
    }
    const problems = checkRequest(req.headers, body);
    this.requests.push({ headers: req.headers, body, bytes: raw.length, problems });
    if (problems.length) return send(res, 400, apiError('invalid_request_error', problems.join('; ')));
    if (!this.serves(body.model)) return send(res, 404, apiError('not_found_error', `model: ${String(body.model)}`));
    const input = countTokens(body);
    if (input > this.contextTokens) {
      return send(res, 400, apiError('invalid_request_error', `prompt is too long: ${input} tokens > ${this.contextTokens} maximum`));
    }
    const reply = this.script.shift() ?? this.fallback;
    if (reply.kind === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (reply.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${Date.now()}` });
      return void res.end('{"id": "msg_1", "type": "message", "content": [{"type": "te');
    }
    if (reply.kind === 'error') {
      const type =
        reply.type ??
        { 400: 'invalid_request_error', 401: 'authentication_error', 404: 'not_found_error', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' }[reply.status];
      res.setHeader('retry-after-ms', '10');
      return send(res, reply.status, apiError(type, reply.message ?? type));
    }
    const cache = this.useCache(body);
    const message = {
      id: `msg_${this.requests.length}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: reply.blocks.map((b) => textBlock(b, searchResults(body))),
      stop_reason: reply.stop_reason ?? 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: input - cache.read - cache.written,
        output_tokens: reply.blocks.reduce((n, b) => n + Math.ceil(b.text.length / 4), 0),
        cache_creation_input_tokens: cache.written,
        cache_read_input_tokens: cache.read,
      },
    };
    if (body.stream === true) {
      if (!writeMessageStream(res, message, reply.fault)) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
      }
      return;
    }
    if (!reply.delayMs) return send(res, 200, message);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send(res, 200, message);
    }, reply.delayMs);
    this.timers.add(timer);
  }

  /**
   * Cache reads and writes of a request: the longest cached prefix it starts with is read; each breakpoint's prefix
   * long enough to cache and not cached yet is written (what was read is not written again).
   */
  private useCache(body: Record<string, unknown>): { read: number; written: number } {
    const prefixes = cachePrefixes(body);
    let read = 0;
    for (const p of prefixes) read = Math.max(read, this.cache.get(p.key) ?? 0);
    let written = 0;
    for (const p of prefixes) {
      if (!p.breakpoint || p.tokens < this.minCacheTokens || this.cache.has(p.key)) continue;
      this.cache.set(p.key, p.tokens);
      written = Math.max(written, p.tokens - read);
    }
    return { read, written };
  }
}

function apiError(type: string, message: string): unknown {
  return { type: 'error', error: { type, message } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Date.now()}` });
  res.end(JSON.stringify(body));
}

function textBlock(
  b: { text: string; cite?: number[] },
  results: Array<{ source: string; title: string; text: string }>,
): { type: string; text: string; citations: unknown[] | null } {
  return {
    type: 'text',
    text: b.text,
    citations: b.cite?.length
      ? b.cite.map((i) => ({
          type: 'search_result_location',
          search_result_index: i,
          source: results[i]?.source ?? '',
          title: results[i]?.title ?? null,
          cited_text: results[i]?.text ?? '',
          start_block_index: 0,
          end_block_index: 1,
        }))
      : null,
  };
}

interface Block {
  type?: unknown;
  text?: unknown;
  source?: unknown;
  title?: unknown;
  content?: unknown;
  citations?: unknown;
  cache_control?: unknown;
}

/** Tokens as the stub counts them: about four characters of text a token, as for English. */
export function countTokens(body: Record<string, unknown>): number {
  const text = (v: unknown): number => {
    if (typeof v === 'string') return v.length;
    if (Array.isArray(v)) return v.reduce((n: number, x) => n + text(x), 0);
    if (v && typeof v === 'object') return Object.entries(v).reduce((n, [k, x]) => n + (['text', 'content', 'source', 'title'].includes(k) ? text(x) : 0), 0);
    return 0;
  };
  const system = text(body.system);
  const messages = (body.messages as Array<{ content: unknown }>).reduce((n, m) => n + text(m.content), 0);
  return Math.ceil((system + messages) / 4);
}

/** The prompt's prefixes at each block boundary (system, then each message's blocks), cache markers left out. */
function cachePrefixes(body: Record<string, unknown>): Array<{ key: string; tokens: number; breakpoint: boolean }> {
  const strip = (b: unknown): unknown => (b && typeof b === 'object' ? { ...b, cache_control: undefined } : b);
  const blocks = (content: unknown): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]));
  const out: Array<{ key: string; tokens: number; breakpoint: boolean }> = [];
  const parts: unknown[] = [];
  let chars = 0;
  const add = (role: string, b: Block) => {
    parts.push([role, strip(b)]);
    chars += typeof b.text === 'string' ? b.text.length : JSON.stringify(b.content ?? '').length;
    out.push({ key: JSON.stringify([body.model, parts]), tokens: Math.ceil(chars / 4), breakpoint: !!b.cache_control });
  };
  for (const b of body.system === undefined ? [] : blocks(body.system)) add('system', b);
  for (const m of body.messages as Array<{ role: string; content: unknown }>) for (const b of blocks(m.content)) add(m.role, b);
  return out;
}

/**
 * The documented request shape: headers, model, max_tokens, system blocks, alternating messages, non-empty
 * content in every turn, block types, cache breakpoints.
 */
export function checkRequest(headers: IncomingMessage['headers'], body: Record<string, unknown>): string[] {
  const p: string[] = [];
  const bearer = typeof headers.authorization === 'string' && /^Bearer \S+/.test(headers.authorization);
  if (!bearer && !(typeof headers['x-api-key'] === 'string' && headers['x-api-key'])) p.push('credentials missing (x-api-key or Authorization)');
  if (typeof headers['anthropic-version'] !== 'string') p.push('anthropic-version header missing');
  if (typeof body.model !== 'string' || !body.model) p.push('model must be a non-empty string');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) p.push('max_tokens must be a positive integer');
  let breakpoints = 0;
  const cacheControl = (b: Block, at: string) => {
    if (b.cache_control === undefined) return;
    breakpoints++;
    if ((b.cache_control as { type?: unknown })?.type !== 'ephemeral') p.push(`${at}.cache_control.type must be ephemeral`);
  };
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system) || !(body.system as Block[]).every((b) => b.type === 'text' && typeof b.text === 'string')) {
      p.push('system must be a string or an array of text blocks');
    } else (body.system as Block[]).forEach((b, i) => cacheControl(b, `system.${i}`));
  }
  const messages = body.messages as Array<{ role?: unknown; content?: unknown }> | undefined;
  if (!Array.isArray(messages) || messages.length === 0) return [...p, 'messages must be a non-empty array'];
  if (messages[0].role !== 'user') p.push('the first message must be from the user');
  messages.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant') p.push(`messages.${i}.role invalid`);
    if (i > 0 && m.role === messages[i - 1].role) p.push(`messages.${i}: roles must alternate`);
    if (typeof m.content === 'string') {
      if (!m.content.trim()) p.push(`messages.${i}: all messages must have non-empty content`);
      return;
    }
    if (!Array.isArray(m.content)) return p.push(`messages.${i}.content must be a string or blocks`);
    if (m.content.length === 0) p.push(`messages.${i}: all messages must have non-empty content`);
    (m.content as Block[]).forEach((b, j) => {
      const at = `messages.${i}.content.${j}`;
      cacheControl(b, at);
      if (b.type === 'text') {
        if (typeof b.text !== 'string') p.push(`${at}.text must be a string`);
        else if (!b.text.trim()) p.push(`${at}: text content blocks must contain non-whitespace text`);
      } else if (b.type === 'search_result') {
        if (typeof b.source !== 'string' || typeof b.title !== 'string') p.push(`${at}: search_result needs source and title`);
        if (!Array.isArray(b.content) || !(b.content as Block[]).every((t) => t.type === 'text' && typeof t.text === 'string')) {
          p.push(`${at}.content must be text blocks`);
        }
        if (b.citations !== undefined && typeof (b.citations as { enabled?: unknown }).enabled !== 'boolean') {
          p.push(`${at}.citations.enabled must be a boolean`);
        }
      } else p.push(`${at}.type ${String(b.type)} not supported here`);
    });
  });
  if (breakpoints > 4) p.push(`at most 4 blocks with cache_control (got ${breakpoints})`);
  if (messages[messages.length - 1].role !== 'user') p.push('the last message must be from the user');
  return p;
}

function searchResults(body: Record<string, unknown>): Array<{ source: string; title: string; text: string }> {
  const out: Array<{ source: string; title: string; text: string }> = [];
  for (const m of body.messages as Array<{ content: unknown }>) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Block[]) {
      if (b.type === 'search_result') {
        out.push({ source: String(b.source), title: String(b.title), text: (b.content as Block[]).map((t) => String(t.text)).join('') });
      }
    }
  }
  return out;
}

/** Client settings for tests against a started stub: short timeouts, models named claude-test and claude-small. */
export function stubSettings(baseURL: string, overrides: Partial<ClaudeSettings> = {}): ClaudeSettings {
  return {
    apiKey: 'sk-test',
    baseURL,
    model: 'claude-test',
    maxTokens: 300,
    timeoutMs: 2000,
    maxRetries: 2,
    rewriteModel: 'claude-small',
    rewriteTimeoutMs: 500,
    reserveMs: 0,
    ...overrides,
  };
}
