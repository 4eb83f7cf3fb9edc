import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import type { ClaudeSettings } from '../claude.client';

/**
 * A local server speaking the subset of Anthropic's Messages API the service uses (POST /v1/messages), for
 * tests: it checks each request against the documented shape, records it, and answers with scripted replies:
 * text with `search_result_location` citations, API errors (429, 500, 529 overloaded), or silence (timeout).
 */
export type Reply =
  | { kind: 'answer'; blocks: Array<{ text: string; cite?: number[] }> }
  | { kind: 'error'; status: 429 | 500 | 529; type?: string }
  | { kind: 'hang' };

export interface Recorded {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  problems: string[];
}

export class MessagesApiStub {
  readonly requests: Recorded[] = [];
  /** Model ids looked up with `GET /v1/models/{id}` (readiness), apart from the Messages requests. */
  readonly modelLookups: string[] = [];
  private readonly script: Reply[] = [];
  private fallback: Reply = { kind: 'answer', blocks: [{ text: 'ok' }] };
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();

  /** Replies used in order, one per request; then `otherwise`. */
  enqueue(...replies: Reply[]): this {
    this.script.push(...replies);
    return this;
  }

  otherwise(reply: Reply): this {
    this.fallback = reply;
    return this;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url?.split('?')[0] ?? '';
    if (req.method === 'GET' && path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      this.modelLookups.push(id);
      return send(res, 200, { type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' });
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      return send(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'Invalid JSON' } });
    }
    const problems = checkRequest(req.headers, body);
    this.requests.push({ headers: req.headers, body, problems });
    if (problems.length) {
      return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: problems.join('; ') } });
    }
    const reply = this.script.shift() ?? this.fallback;
    if (reply.kind === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (reply.kind === 'error') {
      const type = reply.type ?? { 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' }[reply.status];
      res.setHeader('retry-after-ms', '10');
      return send(res, reply.status, { type: 'error', error: { type, message: type } });
    }
    const results = searchResults(body);
    send(res, 200, {
      id: `msg_${this.requests.length}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: reply.blocks.map((b) => ({
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
      })),
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 80 },
    });
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Date.now()}` });
  res.end(JSON.stringify(body));
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

/** The documented request shape: headers, model, max_tokens, system blocks, alternating messages, block types. */
export function checkRequest(headers: IncomingMessage['headers'], body: Record<string, unknown>): string[] {
  const p: string[] = [];
  const bearer = typeof headers.authorization === 'string' && /^Bearer \S+/.test(headers.authorization);
  if (!bearer && !(typeof headers['x-api-key'] === 'string' && headers['x-api-key'])) p.push('credentials missing (x-api-key or Authorization)');
  if (typeof headers['anthropic-version'] !== 'string') p.push('anthropic-version header missing');
  if (typeof body.model !== 'string' || !body.model) p.push('model must be a non-empty string');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) p.push('max_tokens must be a positive integer');
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system) || !(body.system as Block[]).every((b) => b.type === 'text' && typeof b.text === 'string')) {
      p.push('system must be a string or an array of text blocks');
    }
  }
  const messages = body.messages as Array<{ role?: unknown; content?: unknown }> | undefined;
  if (!Array.isArray(messages) || messages.length === 0) return [...p, 'messages must be a non-empty array'];
  if (messages[0].role !== 'user') p.push('the first message must be from the user');
  messages.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant') p.push(`messages.${i}.role invalid`);
    if (i > 0 && m.role === messages[i - 1].role) p.push(`messages.${i}: roles must alternate`);
    if (typeof m.content === 'string') return;
    if (!Array.isArray(m.content)) return p.push(`messages.${i}.content must be a string or blocks`);
    (m.content as Block[]).forEach((b, j) => {
      const at = `messages.${i}.content.${j}`;
      if (b.type === 'text') {
        if (typeof b.text !== 'string') p.push(`${at}.text must be a string`);
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
    apiKey: 'sk-test', baseURL, model: 'claude-test', maxTokens: 300, timeoutMs: 2000, maxRetries: 2, rewriteModel: 'claude-small', rewriteTimeoutMs: 500,
    ...overrides,
  };
}
