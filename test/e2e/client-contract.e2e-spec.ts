import { ANSWER_EVENTS, AskdataClient } from '@askdata/client';
import { clientInterfaces, differences, parameterShapes, Shapes, schemaShapes } from '../support/client-types';
import { http } from '../support/harness';

/**
 * The client package (packages/client) against the OpenAPI document the service serves: every /v1 operation has a
 * client method and every client method calls a documented operation, with documented query parameters, body
 * fields and headers; every type the client declares has the document's fields (names, optional, null, kinds, enum
 * values, references). Fails when either side changes without the other.
 */
type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
type Seen = { method: string; url: URL; headers: Headers; body: any };

/** The client's interfaces and the document's schemas they stand for. */
const SCHEMAS: Record<string, string> = {
  Receipt: 'UpsertReceiptView',
  Upsert: 'UpsertView',
  CollectionField: 'CollectionFieldView',
  Collection: 'CollectionView',
  Item: 'ItemView',
  User: 'UserView',
  Source: 'SourceView',
  ChatMessage: 'MessageView',
  Chat: 'ChatView',
  SearchHit: 'SearchHitView',
  PageLink: 'PageLinkDoc',
  PageMeta: 'PageMetaDoc',
  PageLinks: 'PageLinksDoc',
  UpsertItemInput: 'UpsertItemDto',
  CollectionInput: 'CollectionInputDto',
  CreateUpsertInput: 'CreateUpsertDto',
  IdentifierInput: 'IdentifierDto',
  QuestionInput: 'QuestionDto',
  SearchInput: 'SearchDto',
  FollowUpInput: 'FollowUpDto',
  FeedbackInput: 'FeedbackDto',
  SessionInput: 'CreateSessionDto',
  Session: 'SessionView',
};
/** The client asks for a stream with its `...Stream` methods (Accept: text/event-stream), not with this field. */
const LEFT_OUT: Record<string, string[]> = { QuestionDto: ['stream'], FollowUpDto: ['stream'] };
/** List parameters: the query parameters of an operation. */
const PARAMETERS: Record<string, [string, string]> = {
  UpsertListParams: ['get', '/v1/upserts'],
  ItemListParams: ['get', '/v1/items'],
  CollectionListParams: ['get', '/v1/collections'],
  ChatListParams: ['get', '/v1/chats'],
  DeleteItemByIdParams: ['delete', '/v1/items'],
};
/** Inline schemas of the document. */
const INLINE: Record<string, (doc: Doc) => any> = {
  FieldDeclaration: (doc) => doc.components.schemas.CollectionInputDto.properties.metadata.additionalProperties,
  // The envelope of every list (its `data` is generic in the client).
  Page: (doc) => {
    const schema = doc.paths['/v1/items'].get.responses['200'].content['application/json'].schema;
    return { ...schema, properties: { ...schema.properties, data: { type: 'array' } } };
  },
  StreamStart: (doc) => events(doc).start,
  StreamDelta: (doc) => events(doc).delta,
  StreamSources: (doc) => events(doc).sources,
  StreamErrorData: (doc) => events(doc).error,
};
/** Interfaces of the client itself (settings, internals), not of the API. */
const OWN = ['ClientOptions', 'RequestOptions', 'WaitOptions', 'Call', 'Sent', 'RawEvent', 'PageParams'];

const events = (doc: Doc) => doc.paths['/v1/query'].post.responses['200'].content['text/event-stream'].schema['x-events'];

const LISTED = { page: 2, per_page: 5 };
/** Every public method of the client, called with every parameter it has. */
const CALLS: Record<string, (c: AskdataClient) => Promise<unknown>> = {
  'upserts.create': (c) => c.upserts.create({ items: [{ id: 'a', data: { text: 'x' } }], collection: { slug: 'faq' } }),
  'upserts.list': (c) => c.upserts.list({ ...LISTED, status: 'queued', collection: 'faq' }),
  'upserts.iterate': (c) => drain(c.upserts.iterate({ ...LISTED, status: 'failed', collection: 'faq' })),
  'upserts.get': (c) => c.upserts.get('u1'),
  'upserts.wait': (c) => c.upserts.wait('u1'),
  'items.list': (c) => c.items.list({ ...LISTED, collection: 'faq', tenant: 1, item_id: 'a' }),
  'items.iterate': (c) => drain(c.items.iterate({ ...LISTED, collection: 'faq', tenant: 1, item_id: 'a' })),
  'items.get': (c) => c.items.get('i1'),
  'items.delete': (c) => c.items.delete('i1'),
  'items.deleteByItemId': (c) => c.items.deleteByItemId({ item_id: 'a', collection: 'faq' }),
  'collections.list': (c) => c.collections.list({ ...LISTED, slug: 'faq' }),
  'collections.iterate': (c) => drain(c.collections.iterate({ ...LISTED, slug: 'faq' })),
  'collections.get': (c) => c.collections.get('c1'),
  'collections.delete': (c) => c.collections.delete('c1'),
  'tenants.delete': (c) => c.tenants.delete(7),
  'chats.create': (c) => c.chats.create({ text: 'q', collections: ['faq'], tenant: 1, identifier: { id: 'u' }, filter: {}, language: 'en' }),
  'chats.createStream': (c) => c.chats.createStream({ text: 'q' }).final(),
  'chats.followUp': (c) => c.chats.followUp('c1', { text: 'q', language: 'en' }),
  'chats.followUpStream': (c) => c.chats.followUpStream('c1', { text: 'q' }).final(),
  'chats.list': (c) => c.chats.list({ ...LISTED, tenant: 1, type: 'all', user: 'u' }),
  'chats.iterate': (c) => drain(c.chats.iterate({ ...LISTED, tenant: 1, type: 'query', user: 'u' })),
  'chats.get': (c) => c.chats.get('c1'),
  'chats.message': (c) => c.chats.message('c1', 'm1'),
  'chats.feedback': (c) => c.chats.feedback('c1', { feedback: 'positive' }),
  'chats.messageFeedback': (c) => c.chats.messageFeedback('c1', 'm1', { feedback: 'negative' }),
  query: (c) => c.query({ text: 'q', collections: ['faq'], tenant: 1, identifier: { id: 'u', name: 'n', email: 'e@x.io' }, filter: {}, language: 'en' }),
  queryStream: (c) => c.queryStream({ text: 'q' }).final(),
  search: (c) => c.search({ text: 'q', limit: 3 }),
  'sessions.create': (c) => c.sessions.create({ tenant: 1, identifier: { id: 'u', name: 'n', email: 'e@x.io' }, collections: ['faq'], ttl: 600 }),
};
/** Searching and minting a session token change nothing: retried without an Idempotency-Key, so the service keeps no answer of them. */
const UNKEYED = ['post /v1/search', 'post /v1/sessions'];

async function drain(it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it);
}

function operations(doc: Doc): Array<{ id: string; pattern: RegExp; op: any }> {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v1/') && path !== '/v1/openapi.json')
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ id: `${method} ${path}`, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`), op })));
}

/** Calls `fn` on a client whose fetch records each request and answers as the document says the route answers. */
async function record(doc: Doc, fn: (c: AskdataClient) => Promise<unknown>): Promise<Seen[]> {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    seen.push({ method: init!.method!, url, headers, body: init?.body ? JSON.parse(init.body as string) : undefined });
    if (headers.get('accept') === 'text/event-stream') return Promise.resolve(new Response('event: done\ndata: {}\n\n', { headers: { 'Content-Type': 'text/event-stream' } }));
    const match = operations(doc).find((o) => o.id.startsWith(`${init!.method!.toLowerCase()} `) && o.pattern.test(url.pathname));
    const list = match?.op.responses['200']?.content?.['application/json']?.schema?.properties?.meta;
    const body = list ? { data: [], meta: {}, links: { next: null } } : { data: { status: 'completed' } };
    return Promise.resolve(new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }));
  };
  await fn(new AskdataClient({ baseUrl: 'http://askdata.test', apiKey: 'ak_contract', fetch }));
  return seen;
}

describe('the client package against the served OpenAPI document', () => {
  let doc: Doc;
  beforeAll(async () => {
    doc = (await http('GET', '/v1/openapi.json')).body;
  });

  it('has a method for every /v1 operation, and every method calls a documented operation with documented parameters and headers', async () => {
    const client = new AskdataClient({ baseUrl: 'http://askdata.test', apiKey: 'ak_contract' });
    const methods = (o: object): string[] => {
      const names = new Set<string>();
      for (let p = Object.getPrototypeOf(o) as object | null; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
        for (const n of Object.getOwnPropertyNames(p)) if (n !== 'constructor') names.add(n);
      }
      return [...names];
    };
    const namespaces = Object.entries(client).filter(([name, v]) => name !== 'http' && typeof v === 'object');
    expect([...methods(client), ...namespaces.flatMap(([ns, o]) => methods(o).map((m) => `${ns}.${m}`))].sort()).toEqual(Object.keys(CALLS).sort());

    const ops = operations(doc);
    const reached = new Set<string>();
    const problems: string[] = [];
    for (const [name, call] of Object.entries(CALLS)) {
      const seen = await record(doc, call);
      if (seen.length === 0) problems.push(`${name}: sent nothing`);
      for (const s of seen) {
        const found = ops.filter((o) => o.id.startsWith(`${s.method.toLowerCase()} `) && o.pattern.test(s.url.pathname));
        if (found.length !== 1) {
          problems.push(`${name}: ${s.method} ${s.url.pathname} matches ${found.length} documented operations`);
          continue;
        }
        const { id, op } = found[0];
        reached.add(id);
        const params = (op.parameters ?? []) as Array<{ name: string; in: string }>;
        for (const q of s.url.searchParams.keys())
          if (!params.some((p) => p.in === 'query' && p.name === q)) problems.push(`${name}: query parameter ${q} is not documented on ${id}`);
        const keyed = params.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
        const streamed = s.headers.get('accept') === 'text/event-stream';
        if (s.headers.has('idempotency-key') && !keyed) problems.push(`${name}: sends an Idempotency-Key ${id} does not take`);
        if (keyed && !streamed && !s.headers.has('idempotency-key') && !UNKEYED.includes(id)) problems.push(`${name}: ${id} takes an Idempotency-Key the client does not send`);
        if (streamed && !op.responses['200']?.content?.['text/event-stream']) problems.push(`${name}: asks ${id} for a stream it does not document`);
        if (s.headers.get('api-key') !== 'ak_contract' || !params.some((p) => p.in === 'header' && p.name === 'Api-Key')) problems.push(`${name}: Api-Key`);
        const bodySchema = op.requestBody?.content?.['application/json']?.schema?.$ref?.replace('#/components/schemas/', '');
        for (const field of Object.keys(s.body ?? {}))
          if (!doc.components.schemas[bodySchema]?.properties?.[field]) problems.push(`${name}: body field ${field} is not in ${bodySchema}`);
      }
    }
    expect(problems).toEqual([]);
    expect([...reached].sort()).toEqual(ops.map((o) => o.id).sort());
  });

  it('streams from every operation the document streams, with the documented events', async () => {
    const streams = operations(doc).filter((o) => o.op.responses['200']?.content?.['text/event-stream']);
    expect(streams.map((o) => o.id).sort()).toEqual(['post /v1/chats', 'post /v1/chats/{chat}/messages', 'post /v1/query']);
    for (const o of streams) expect(Object.keys(o.op.responses['200'].content['text/event-stream'].schema['x-events'])).toEqual([...ANSWER_EVENTS]);
    const asked = new Set<string>();
    for (const name of Object.keys(CALLS).filter((n) => n.endsWith('Stream'))) {
      for (const s of await record(doc, CALLS[name])) if (s.headers.get('accept') === 'text/event-stream') asked.add(`${s.method.toLowerCase()} ${s.url.pathname}`);
    }
    expect(asked.size).toBe(streams.length);
  });

  it("declares each resource, request body, list's parameters and event with the document's fields", () => {
    const declared = clientInterfaces();
    const refs = { ...SCHEMAS };
    const problems: string[] = [];
    const compare = (name: string, document: Shapes, skip?: string[]) => problems.push(...differences(name, declared.get(name) ?? {}, document, refs, skip));
    for (const [name, schema] of Object.entries(SCHEMAS)) compare(name, schemaShapes(doc.components.schemas[schema]), LEFT_OUT[schema]);
    for (const [name, [method, path]] of Object.entries(PARAMETERS)) compare(name, parameterShapes(doc.paths[path][method]));
    for (const [name, find] of Object.entries(INLINE)) compare(name, schemaShapes(find(doc)));
    // The error body: `message`, and `errors` on a 422 only.
    const errorBody = { ...schemaShapes(doc.components.schemas.ValidationErrorBody) };
    errorBody.errors = { ...errorBody.errors, optional: true };
    compare('ErrorBody', errorBody);
    expect(problems).toEqual([]);
    const unaccounted = [...declared.keys()].filter((n) => !(n in SCHEMAS) && !(n in PARAMETERS) && !(n in INLINE) && !OWN.includes(n) && n !== 'ErrorBody');
    expect(unaccounted).toEqual([]);
  });
});
