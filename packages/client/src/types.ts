/**
 * The resources and request bodies of the /v1 API, as the OpenAPI document served at `/v1/openapi.json` describes
 * them (test/e2e/client-contract.e2e-spec.ts fails when the two disagree). Timestamps are ISO-8601 UTC strings.
 */

export type UpsertStatus = 'queued' | 'processing' | 'completed' | 'failed';

/** The answer to a POST /upserts or a DELETE: the upsert (or delete) to poll with `upserts.get`. */
export interface Receipt {
  id: string;
  result: string;
  created_at: string;
}

export interface Upsert {
  id: string;
  chunk_size: number;
  status: UpsertStatus;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  collection: string;
  items_count: number;
  error: string | null;
  attempts: number;
  kind: 'upsert' | 'delete';
  /** What a delete removes; null on upserts. */
  target: { item?: string; item_id?: string; collection?: string; tenant?: number } | null;
}

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'enum';

export interface CollectionField {
  name: string;
  type: FieldType;
  options?: string[];
  description?: string;
}

export interface Collection {
  id: string;
  name: string;
  slug: string;
  source: string;
  metadata: CollectionField[];
  language: string | null;
  created_at: string;
  items_count: number;
}

export interface Item {
  id: string;
  item_id: string;
  tenant: number | null;
  url: string | null;
  created_at: string;
  collection: Collection;
  /** The newest 20 upserts that touched the item, newest first. */
  upserts: Upsert[];
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  updated_at: string;
  language: string | null;
}

export interface User {
  id: string;
  name: string | null;
  email: string | null;
  avatar: string | null;
  created_at: string;
}

export interface Source {
  index: number;
  item_id: string;
  id: string;
  collection: string;
  url: string | null;
  snippet: string;
  deleted?: boolean;
}

export interface ChatMessage {
  id: string;
  chat_id: string;
  role: 'user' | 'assistant';
  /** Markdown with `[n]` citations into `sources`. */
  text: string;
  text_html: string;
  identifier: string | null;
  feedback: string | null;
  created_at: string;
  user: User | null;
  sources: Source[];
  finish_reason: 'complete' | 'truncated' | 'refused' | null;
}

export interface Chat {
  id: string;
  name: string;
  tenant: number | null;
  created_at: string;
  user: User | null;
  messages: ChatMessage[];
  type: 'chat' | 'query';
  feedback: string | null;
}

/** A session token, for the `sessionToken` of a client made with a publishable key. */
export interface Session {
  token: string;
  /** When the token stops being accepted. */
  expires_at: string;
}

export interface SearchHit {
  id: string;
  item_id: string;
  collection: string;
  tenant: number | null;
  url: string | null;
  metadata: Record<string, unknown>;
  score: number;
  snippet: string;
}

export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  links: PageLink[];
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}

export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

/** One page of a list. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
  links: PageLinks;
}
