// Over 250 lines: every bus subject's request and reply types in one place, so both sides compile against one
// definition.
import { FieldSource } from './fields';
import { Subjects } from './subjects';
import type { WebhookEventType, WebhookResource } from './dto/webhooks.dto';
import { Paged, Scope } from './scope';
import {
  ChatType,
  ChatView,
  CollectionFieldView,
  ItemChunksView,
  CollectionView,
  MessageView,
  ReindexView,
  SearchHitView,
  SourceView,
  UpsertReceiptView,
  UpsertStatus,
  UpsertView,
} from './views';

/** Typed request/response pairs for every bus subject. Both sides compile against this one definition. */

export interface UpsertItemInput {
  id: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  tenant: number | null;
  url: string | null;
  /** The language given with the item (ISO 639-1). */
  language?: string | null;
  /** The language detected in its text, when none was given: ingestion adds it before catalog stores the item. */
  detected_language?: string | null;
}

/**
 * An item as ingestion gives it to catalog: with its data as sent, or with the data packed for storage already
 * (`packed`: base64 of `packJson`), which catalog stores as it is.
 */
export type CatalogItemInput = Omit<UpsertItemInput, 'data'> & ({ data: Record<string, unknown>; packed?: undefined } | { packed: string; data?: undefined });

export interface CollectionInput {
  slug: string;
  name?: string;
  source?: string;
  metadata?: Record<string, FieldDeclaration>;
  /** The language of the collection's items, unless an item gives its own. */
  language?: string | null;
}

/** A declared field of a collection, as `collection.metadata` declares it. */
export interface FieldDeclaration {
  type: string;
  options?: Array<string | number>;
  description?: string;
}

export interface Scoped {
  scope: Scope;
}
export interface PageParams {
  page: number;
  perPage: number;
}

/** An item as catalog stores it; the gateway embeds the upserts (owned by ingestion) into the public Item. */
export interface ItemRecord {
  id: string;
  item_id: string;
  tenant: number | null;
  url: string | null;
  created_at: string;
  updated_at: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** The item's language: given, the collection's, or detected (null when it could not be told). */
  language: string | null;
  collection: CollectionView;
  upsert_ids: string[];
}

export interface ResolvedCollection {
  id: string;
  slug: string;
  fields: CollectionFieldView[];
}

export interface ChunkInput {
  itemId: string;
  clientItemId: string;
  collection: string;
  tenant: number | null;
  url: string | null;
  metadata: Record<string, unknown>;
  title: string;
  chunks: string[];
  /** The language its text is analyzed in (ISO 639-1); English when absent. */
  language?: string;
}

export interface SearchRequest extends Scoped {
  text: string;
  collections: string[] | null;
  tenant: number | null;
  filter: Record<string, unknown> | null;
  limit: number;
  /** The question's language, when known: the question is analyzed in it too. */
  language?: string | null;
  /**
   * false: the hits' `text` is empty (a search shows snippets only, and the chunks' texts are most of a reply's
   * bytes); otherwise each hit carries its chunk's full text.
   */
  texts?: boolean;
}

/** A search hit with the matching chunk's full text (empty when the search asked for none), for answer generation. */
export interface RetrievedChunk extends SearchHitView {
  text: string;
  chunk: number;
  /** The language the chunk was analyzed in; English when absent. */
  language?: string;
}

export interface Identifier {
  id: string;
  name?: string;
  email?: string;
}

export interface QuestionRequest extends Scoped {
  text: string;
  collections: string[] | null;
  tenant: number | null;
  identifier: Identifier | null;
  filter: Record<string, unknown> | null;
  /** The project's instructions for answers. */
  instructions: string | null;
  /** The id of the chat it creates (see {@link CreateId}). */
  id?: CreateId;
  /** The question's language as given; detected when absent. */
  language?: string | null;
  /** Streams the answer as it is written on this channel (see `StreamTicket`). */
  stream?: StreamTicket;
}

/**
 * A channel the answer is streamed on, chosen by the asker: frames go to `stream.<id>` (each with a sequence
 * number; at most `window` beyond the last one acknowledged on `stream.<id>.ctl`, which also carries a cancel).
 */
export interface StreamTicket {
  id: string;
  window: number;
}

/** What a streamed answer sends, in order: `start`, `delta`s, `sources`, `done` (the stored resource). */
export type StreamEvent =
  | { event: 'start'; data: { chat: string; message: string } }
  | { event: 'delta'; data: { text: string } }
  | { event: 'sources'; data: { sources: SourceView[] } }
  | { event: 'done'; data: unknown };

/** A frame on a stream's channel: an event with its sequence number (from 1), or a heartbeat (`seq` 0). */
export type StreamFrame = (StreamEvent & { seq: number }) | { seq: 0; event: 'ping' };

/** What the asker sends on `stream.<id>.ctl`: frames up to `ack` are taken, or stop. */
export type StreamControl = { ack: number } | { cancel: true };

/**
 * The id a request that creates something gives it, chosen by the gateway for a request with an Idempotency-Key
 * (the same on every retry): when something of that id exists already, the service creates nothing and answers
 * with what exists. Without it, the service chooses the id.
 */
export type CreateId = string;

/**
 * What a delete removes: one item by its service id, one by the client's id in a collection (slug), a collection
 * with its items (by id; its slug is kept for the receipt), or everything of a tenant.
 */
export type DeleteTarget =
  | { kind: 'item'; id: string }
  | { kind: 'client_item'; collection: string; itemId: string }
  | { kind: 'collection'; id: string; slug: string }
  | { kind: 'tenant'; tenant: number };

/** An item a delete removes, as catalog selects it. */
export interface DeletedItem {
  id: string;
  item_id: string;
  collection: string;
}

export interface HealthReport {
  service: string;
  status: 'ok' | 'error';
  details: Record<string, { status: 'up' | 'down'; message?: string }>;
}

export interface BusContract {
  [Subjects.ingestion.upsertsCreate]: {
    request: Scoped & { items: UpsertItemInput[]; collection: CollectionInput | null; id?: CreateId };
    response: UpsertReceiptView;
  };
  [Subjects.ingestion.upsertsList]: {
    request: Scoped & PageParams & { status: UpsertStatus | null; collection: string | null };
    response: Paged<UpsertView>;
  };
  [Subjects.ingestion.upsertsGet]: { request: Scoped & { id: string }; response: UpsertView };
  [Subjects.ingestion.upsertsLookup]: { request: Scoped & { ids: string[] }; response: UpsertView[] };
  [Subjects.ingestion.upsertsRecent]: { request: Scoped & { limit: number }; response: UpsertView[] };
  [Subjects.ingestion.deletesCreate]: { request: Scoped & { target: DeleteTarget; id?: CreateId }; response: UpsertReceiptView };
  [Subjects.ingestion.health]: { request: Record<string, never>; response: HealthReport };

  [Subjects.catalog.batchApply]: {
    request: Scoped & { upsertId: string; collection: CollectionInput | null; items: CatalogItemInput[] };
    response: { collection: { id: string; slug: string }; items: Array<{ id: string; item_id: string; language: string | null }> };
  };
  [Subjects.catalog.itemsList]: {
    request: Scoped & PageParams & { collection: string | null; tenant: number | null; itemId: string | null };
    response: Paged<ItemRecord>;
  };
  [Subjects.catalog.itemsGet]: { request: Scoped & { id: string }; response: ItemRecord };
  [Subjects.catalog.collectionsList]: {
    request: Scoped & PageParams & { slug: string | null };
    response: Paged<CollectionView>;
  };
  [Subjects.catalog.collectionsGet]: { request: Scoped & { id: string }; response: CollectionView };
  [Subjects.catalog.collectionsResolve]: {
    request: Scoped & { slugs: string[] | null; path: string };
    response: ResolvedCollection[];
  };
  /** 422 when the fields would take the collection beyond Bounds.collectionFields. */
  [Subjects.catalog.fieldsCheck]: { request: Scoped & { slug: string; fields: FieldSource[] }; response: { fields: number } };
  /** The first `limit` items the target covers (none once they are deleted). */
  [Subjects.catalog.deletesSelect]: { request: Scoped & { target: DeleteTarget; limit: number }; response: { items: DeletedItem[] } };
  /**
   * Deletes these items of the target (and, with `last`, a collection target's collection itself); idempotent.
   * Announces the change to every gateway before it answers.
   */
  [Subjects.catalog.deletesApply]: { request: Scoped & { target: DeleteTarget; ids: string[]; last: boolean }; response: { deleted: number } };
  [Subjects.catalog.health]: { request: Record<string, never>; response: HealthReport };

  [Subjects.retrieval.chunksReplace]: { request: Scoped & { items: ChunkInput[] }; response: { chunks: number } };
  [Subjects.retrieval.search]: { request: SearchRequest; response: RetrievedChunk[] };
  [Subjects.retrieval.reindexStart]: { request: { projectId: string }; response: ReindexView };
  [Subjects.retrieval.reindexGet]: { request: { projectId: string }; response: ReindexView };
  [Subjects.retrieval.chunksList]: { request: { projectId: string; itemId: string }; response: ItemChunksView };
  [Subjects.retrieval.health]: { request: Record<string, never>; response: HealthReport };

  [Subjects.conversation.query]: { request: QuestionRequest; response: MessageView };
  [Subjects.conversation.chatsCreate]: { request: QuestionRequest; response: ChatView };
  [Subjects.conversation.chatsList]: {
    request: Scoped & PageParams & { tenant: number | null; type: ChatType | 'all'; user: string | null };
    response: Paged<ChatView>;
  };
  [Subjects.conversation.chatsGet]: { request: Scoped & { id: string }; response: ChatView };
  [Subjects.conversation.chatsFeedback]: { request: Scoped & { id: string; feedback: string }; response: ChatView };
  [Subjects.conversation.messagesCreate]: {
    /** `id`: the question's message id; the answer returned is the one stored after it. */
    request: Scoped & { chatId: string; text: string; instructions: string | null; id?: CreateId; language?: string | null; stream?: StreamTicket };
    response: MessageView;
  };
  [Subjects.conversation.messagesGet]: { request: Scoped & { chatId: string; id: string }; response: MessageView };
  [Subjects.conversation.messagesFeedback]: {
    request: Scoped & { chatId: string; id: string; feedback: string };
    response: MessageView;
  };
  /** Marks the sources citing these items deleted (their url and snippet dropped); idempotent. */
  [Subjects.conversation.sourcesForget]: { request: Scoped & { itemIds: string[] }; response: { messages: number } };
  /**
   * Deletes up to `limit` of a tenant's chats, their messages, and the users left without a chat, in one
   * transaction; idempotent. Fewer than `limit` chats deleted: none of the tenant's is left.
   */
  [Subjects.conversation.tenantForget]: { request: Scoped & { tenant: number; limit: number }; response: { chats: number } };
  [Subjects.conversation.outboxRead]: OutboxRead;
  [Subjects.conversation.outboxAck]: OutboxAck;
  [Subjects.conversation.health]: { request: Record<string, never>; response: HealthReport };
  [Subjects.ingestion.outboxRead]: OutboxRead;
  [Subjects.ingestion.outboxAck]: OutboxAck;
}

/**
 * A webhook event as the service that made the change wrote it to its outbox, in the transaction of the change:
 * `data` is the resource as the API shows it.
 */
export interface OutboxEvent {
  id: string;
  project_id: string;
  type: WebhookEventType;
  resource: WebhookResource;
  created_at: string;
  data: unknown;
}

/** The oldest events of a service's outbox, in the order written: at most `limit`, and about `maxBytes` (at least one). */
type OutboxRead = { request: { limit: number; maxBytes: number }; response: { events: OutboxEvent[] } };
/** Events the gateway has stored for delivery: deleted from the outbox. */
type OutboxAck = { request: { ids: string[] }; response: { deleted: number } };

export type RequestSubject = keyof BusContract;
export type BusRequest<S extends RequestSubject> = BusContract[S]['request'];
export type BusResponse<S extends RequestSubject> = BusContract[S]['response'];

/** Payload of the ingestion doorbell (JetStream). The database row is the truth; the message only rings a bell. */
export interface UpsertQueuedEvent {
  upsertId: string;
}

/** Broadcasts: fire-and-forget messages every subscriber receives (no queue group, no reply). */
export interface BroadcastContract {
  /** What one gateway admitted per API key id since its last report; `from` is the reporting gateway. */
  [Subjects.gateway.rateLimitUsed]: { from: string; used: Record<string, number> };
  /**
   * The project's lists changed. Sent by catalog after a change to its items or collections is committed, before it
   * answers, with the upserts it `applied` when known (upserts in progress); by ingestion with `settled` before it
   * commits those upserts `completed` or `failed`.
   */
  [Subjects.catalog.changed]: { projectId: string; applied?: string[]; settled?: string[] };
}
export type BroadcastSubject = keyof BroadcastContract;

/** Shorthand for handler signatures: `handle(req: BusRequest<S>): Out<S>`. */
export type Out<S extends RequestSubject> = Promise<BusResponse<S>>;
