import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AskdataClient } from './client.js';
import {
  ApiError,
  AskdataError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from './errors.js';
import { SESSION_HEADER } from './transport.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A local HTTP server answering each request with the next handler (the last one repeats); it records requests. */
async function serve(
  ...handlers: Handler[]
): Promise<{ url: string; seen: Array<{ at: number; method: string; url: string; headers: IncomingMessage['headers']; body: string }>; close: () => Promise<void> }> {
  const seen: Array<{ at: number; method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ at: Date.now(), method: req.method!, url: req.url!, headers: req.headers, body });
      handlers[Math.min(seen.length - 1, handlers.length - 1)](req, res, body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((ok) => (server.closeAllConnections(), server.close(() => ok()))) };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

const RECEIPT = { data: { id: 'u1', result: 'Queued', created_at: '2026-11-26T10:00:00.000000Z' } };
const UPSERT = { items: [{ id: 'a', data: { text: 'x' } }] };

describe('client transport', () => {
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('retries a 429 after its Retry-After, with the same Idempotency-Key, and returns the answer', async () => {
    server = await serve(json(429, { message: 'Too Many Requests.' }, { 'Retry-After': '1' }), json(201, RECEIPT));
    const client = new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test' });
    await expect(client.upserts.create(UPSERT)).resolves.toEqual(RECEIPT.data);
    const [first, second] = server.seen;
    expect(server.seen).toHaveLength(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect(first.headers['idempotency-key']).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect(JSON.parse(second.body)).toEqual(UPSERT);
  });

  it('gives up after maxRetries and throws the typed error with the body and status', async () => {
    server = await serve(json(503, { message: 'The database is unavailable.' }, { 'Retry-After': '0', 'X-Request-Id': 'req-1' }));
    const client = new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test', maxRetries: 2 });
    const error = await client.items.get('i1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, body: { message: 'The database is unavailable.' }, requestId: 'req-1', message: 'The database is unavailable.' });
    expect(server.seen).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond maxRetryDelayMs, nor retry other errors', async () => {
    server = await serve(json(429, { message: 'Too Many Requests.' }, { 'Retry-After': '120' }));
    const client = new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test', maxRetryDelayMs: 5_000 });
    const limited = await client.chats.get('c1').catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(120);
    expect(server.seen).toHaveLength(1);
    await server.close();

    server = await serve(json(422, { message: 'The text field is required.', errors: { text: ['The text field is required.'] } }));
    const other = new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test' });
    const invalid = await other.query({ text: '' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).errors).toEqual({ text: ['The text field is required.'] });
    expect(server.seen).toHaveLength(1);
  });

  it('sends the key, the session token in its header, and the list parameters; paths under /v1 whatever the base URL ends with', async () => {
    server = await serve(json(200, { data: [], meta: {}, links: { next: null } }));
    await new AskdataClient({ baseUrl: `${server.url}/v1/`, apiKey: 'pk_test', sessionToken: 'sess_1' }).items.list({ collection: 'faq', tenant: 3, item_id: undefined });
    await new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test' }).collections.list();
    expect(server.seen.map((s) => s.url)).toEqual(['/v1/items?collection=faq&tenant=3', '/v1/collections']);
    expect(server.seen[0].headers).toMatchObject({ 'api-key': 'pk_test', [SESSION_HEADER.toLowerCase()]: 'sess_1', accept: 'application/json' });
    expect(server.seen[1].headers[SESSION_HEADER.toLowerCase()]).toBeUndefined();
    expect(server.seen[0].headers['idempotency-key']).toBeUndefined();
  });

  it.each([
    [401, AuthenticationError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, ValidationError],
    [429, RateLimitError],
    [503, ServiceUnavailableError],
    [418, ApiError],
  ])('throws a %i as %p, with the body and status', async (status, type) => {
    server = await serve(json(status, { message: 'The origin is not allowed for this key.' }));
    const error = await new AskdataClient({ baseUrl: server.url, apiKey: 'pk_test', maxRetries: 0 }).chats.get('c1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).name).toBe(type.name);
    expect(error).toMatchObject({ status, body: { message: 'The origin is not allowed for this key.' } });
  });

  it('mints a session token without an Idempotency-Key, and a client with a publishable key sends it', async () => {
    const SESSION = { token: 'h.p.s', expires_at: '2026-11-26T11:00:00.000000Z' };
    server = await serve(json(201, { data: SESSION }), json(201, { data: { id: 'm1' } }));
    const input = { tenant: 3, identifier: { id: 'ada' }, collections: ['faq'], ttl: 600 };
    const session = await new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test' }).sessions.create(input);
    expect(session).toEqual(SESSION);
    const browser = new AskdataClient({ baseUrl: server.url, apiKey: 'pk_test', sessionToken: session.token, headers: { Origin: 'https://shop.example' } });
    await browser.query({ text: 'hours' });
    const [minted, asked] = server.seen;
    expect([minted.method, minted.url, JSON.parse(minted.body)]).toEqual(['POST', '/v1/sessions', input]);
    expect(minted.headers['idempotency-key']).toBeUndefined();
    expect(minted.headers[SESSION_HEADER.toLowerCase()]).toBeUndefined();
    expect(asked.headers).toMatchObject({ 'api-key': 'pk_test', [SESSION_HEADER.toLowerCase()]: 'h.p.s', origin: 'https://shop.example' });
  });

  it('times out (retries and waits included) with a TimeoutError, and stops at the caller’s abort with its reason', async () => {
    server = await serve(() => undefined);
    const client = new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test', timeoutMs: 200 });
    await expect(client.upserts.get('u1')).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = client.upserts.get('u1', { signal: controller.signal, timeoutMs: 60_000 });
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
  });

  it('reads an error body that is not the contract’s (a proxy’s page) as the message, and refuses a success that is not JSON', async () => {
    server = await serve((_req, res) => (res.writeHead(502, { 'Content-Type': 'text/html' }), res.end('<h1>Bad gateway</h1>')));
    const error = await new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test' }).upserts.get('u1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, body: { message: '<h1>Bad gateway</h1>' } });
    await server.close();

    server = await serve((_req, res) => (res.writeHead(200, { 'Content-Type': 'text/html' }), res.end('<h1>Login</h1>')));
    const page = await new AskdataClient({ baseUrl: server.url, apiKey: 'ak_test' }).upserts.get('u1').catch((e: unknown) => e);
    expect(page).toBeInstanceOf(AskdataError);
    expect((page as Error).message).toBe('GET /upserts/u1 answered 200 with a body that is not JSON: <h1>Login</h1>');
  });

  it('retries a lost connection for reads and keyed requests only', async () => {
    const fetches: string[] = [];
    const flaky: typeof fetch = (input, init) => {
      fetches.push(`${init?.method} ${input as string}`);
      if (fetches.length % 2 === 1) return Promise.reject(new TypeError('fetch failed'));
      return Promise.resolve(new Response(JSON.stringify({ data: [] }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    };
    const client = new AskdataClient({ baseUrl: 'http://askdata.invalid', apiKey: 'ak_test', fetch: flaky });
    await expect(client.search({ text: 'hours' })).resolves.toEqual([]);
    expect(fetches).toEqual(['POST http://askdata.invalid/v1/search', 'POST http://askdata.invalid/v1/search']);
    const stream = client.queryStream({ text: 'hours' });
    await expect(stream.final()).rejects.toBeInstanceOf(ConnectionError);
    expect(fetches).toHaveLength(3);
  });
});
