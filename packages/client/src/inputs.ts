/** The request bodies and list parameters of the /v1 API, as the OpenAPI document describes them. */
import type { FieldType, UpsertStatus } from './types.js';

export interface UpsertItemInput {
  /** Your id of the item, 1..255 characters. */
  id: string | number;
  /** What is searched. */
  data: Record<string, unknown>;
  /** Context for filtering, not searched. */
  metadata?: Record<string, unknown>;
  /** Required in a multi-tenant project. */
  tenant?: number;
  url?: string;
  /** ISO 639-1 code; detected when absent. */
  language?: string;
}

export interface FieldDeclaration {
  type: FieldType;
  options?: string[];
  description?: string;
}

export interface CollectionInput {
  slug: string;
  name?: string;
  source?: string;
  metadata?: Record<string, FieldDeclaration>;
  language?: string;
}

export interface CreateUpsertInput {
  items: UpsertItemInput[];
  /** Target collection; `default` when absent. */
  collection?: CollectionInput;
}

export interface IdentifierInput {
  id: string;
  name?: string;
  email?: string;
}

export interface QuestionInput {
  text: string;
  /** At least one collection slug that restricts the question; leave it out to search all collections. */
  collections?: string[];
  /** Required in a multi-tenant project. */
  tenant?: number;
  identifier?: IdentifierInput;
  /** On metadata fields: `{field: value}`, `{field: {$in: [...]}}`, `{field: {$gte: n}}`, `{field: {$ne: v}}`. */
  filter?: Record<string, unknown>;
  language?: string;
}

/** A session for a browser: its questions are asked as this tenant and user, within these collections. */
export interface SessionInput {
  /** Required in a multi-tenant project. */
  tenant?: number;
  /** The user the session's chats belong to. */
  identifier?: IdentifierInput;
  /** 1..100 collection slugs the session's questions are restricted to (all when absent). */
  collections?: string[];
  /** Seconds the token lives, 60..86400; default 3600. */
  ttl?: number;
}

export interface SearchInput extends QuestionInput {
  /** 1..100, default 10. */
  limit?: number;
}

export interface FollowUpInput {
  text: string;
  language?: string;
}

export interface FeedbackInput {
  /** 1..1000 characters, not only whitespace; `positive` and `negative` for thumbs up and down. */
  feedback: string;
}

export interface PageParams {
  page?: number;
  per_page?: number;
}

export interface UpsertListParams extends PageParams {
  status?: UpsertStatus;
  collection?: string;
}

export interface ItemListParams extends PageParams {
  collection?: string;
  tenant?: number;
  item_id?: string;
}

export interface CollectionListParams extends PageParams {
  slug?: string;
}

export interface ChatListParams extends PageParams {
  tenant?: number;
  type?: 'chat' | 'query' | 'all';
  user?: string;
}

export interface DeleteItemByIdParams {
  item_id: string;
  /** Collection slug; `default` when absent. */
  collection?: string;
}
