import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AUDIT_ACTIONS, AuditAction, KEY_KINDS, KeyKind } from './dto/admin.dto';
import { Bounds } from './limits';

/**
 * Response resources exactly as the public API shows them (snake_case). Services build these; the gateway
 * passes them through. Fields marked "extension" are additive to interface.md.
 */

export const UPSERT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type UpsertStatus = (typeof UPSERT_STATUSES)[number];

/** What a queued operation does: store items, or delete them (an item, a collection, a tenant's data). */
export const UPSERT_KINDS = ['upsert', 'delete'] as const;
export type UpsertKind = (typeof UPSERT_KINDS)[number];

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const MESSAGE_ROLES = ['user', 'assistant'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** How an answer ended: whole, cut off at a length limit, or declined by the model. */
export const FINISH_REASONS = ['complete', 'truncated', 'refused'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

export const CHAT_TYPES = ['chat', 'query'] as const;
export type ChatType = (typeof CHAT_TYPES)[number];

const TIMESTAMP = { example: '2026-11-22T10:11:19.123456Z', description: 'ISO-8601 UTC with microseconds' };

export class UpsertReceiptView {
  @ApiProperty({ description: 'Extension: the upsert to poll.' }) id!: string;
  @ApiProperty({ example: 'Queued' }) result!: 'Queued';
  @ApiProperty(TIMESTAMP) created_at!: string;
}

export class UpsertView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Number of items in the batch.' }) chunk_size!: number;
  @ApiProperty({ enum: UPSERT_STATUSES }) status!: UpsertStatus;
  @ApiProperty({ ...TIMESTAMP, nullable: true, type: String }) started_at!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, type: String }) completed_at!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ description: 'Extension: slug of the target collection.' }) collection!: string;
  @ApiProperty({ description: 'Extension: number of items in the batch.' }) items_count!: number;
  @ApiProperty({ description: 'Extension: reason when failed.', nullable: true, type: String }) error!: string | null;
  @ApiProperty({ description: 'Extension: processing attempts so far.' }) attempts!: number;
  @ApiProperty({ enum: UPSERT_KINDS, description: 'Extension: `upsert`, or `delete` for the receipt of a DELETE.' }) kind!: UpsertKind;
  @ApiProperty({
    nullable: true,
    type: Object,
    description: 'Extension: what a delete removes: `{item}` (service id), `{collection, item_id}`, `{collection}` (slug) or `{tenant}`; null for upserts.',
  })
  target!: DeleteTargetView | null;
}

/** What a delete removes, as its receipt shows it. */
export interface DeleteTargetView {
  item?: string;
  item_id?: string;
  collection?: string;
  tenant?: number;
}

export class CollectionFieldView {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: FIELD_TYPES }) type!: FieldType;
  @ApiPropertyOptional({ type: [String] }) options?: Array<string | number>;
  @ApiPropertyOptional({ description: 'Extension: what the field holds, as declared.' }) description?: string;
}

export class CollectionView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() source!: string;
  @ApiProperty({ type: [CollectionFieldView], maxItems: Bounds.collectionFields, description: `Declared and inferred metadata fields, at most ${Bounds.collectionFields}.` })
  metadata!: CollectionFieldView[];
  @ApiProperty({ nullable: true, type: String, description: 'Extension. The language declared for its items (ISO 639-1), or null.' })
  language!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty() items_count!: number;
}

export class ItemView {
  @ApiProperty({ description: 'Service-side identifier.' }) id!: string;
  @ApiProperty({ description: 'Identifier supplied by the client.' }) item_id!: string;
  @ApiProperty({ nullable: true, type: Number }) tenant!: number | null;
  @ApiProperty({ nullable: true, type: String }) url!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ type: CollectionView }) collection!: CollectionView;
  @ApiProperty({ type: [UpsertView], maxItems: Bounds.itemUpserts, description: `Upserts that touched the item, newest first: the newest ${Bounds.itemUpserts}.` })
  upserts!: UpsertView[];
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Extension.' }) data!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Extension.' }) metadata!: Record<string, unknown>;
  @ApiProperty({ ...TIMESTAMP, description: 'Extension.' }) updated_at!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "Extension. The language of its data (ISO 639-1): given, the collection's, or detected; null when it could not be told.",
  })
  language!: string | null;
}

export class UserView {
  @ApiProperty({ description: 'The identifier id given by the client.' }) id!: string;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
  @ApiProperty({ nullable: true, type: String }) email!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Gravatar URL from the email.' }) avatar!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
}

export class SourceView {
  @ApiProperty({ description: 'The number used in the answer text, as in [1].' }) index!: number;
  @ApiProperty() item_id!: string;
  @ApiProperty() id!: string;
  @ApiProperty() collection!: string;
  @ApiProperty({ nullable: true, type: String }) url!: string | null;
  @ApiProperty() snippet!: string;
  @ApiPropertyOptional({ description: 'Extension: true once the item was deleted; its url and snippet are then gone (null and empty).' })
  deleted?: boolean;
}

export class MessageView {
  @ApiProperty() id!: string;
  @ApiProperty() chat_id!: string;
  @ApiProperty({ enum: MESSAGE_ROLES }) role!: MessageRole;
  @ApiProperty({ description: 'Markdown with [n] citations.' }) text!: string;
  @ApiProperty({ description: 'Sanitized HTML rendering of text.' }) text_html!: string;
  @ApiProperty({ nullable: true, type: String }) identifier!: string | null;
  @ApiProperty({ nullable: true, type: String }) feedback!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ type: UserView, nullable: true }) user!: UserView | null;
  @ApiProperty({ type: [SourceView], description: 'Extension: sources the citations point to.' }) sources!: SourceView[];
  @ApiProperty({
    enum: FINISH_REASONS,
    nullable: true,
    type: String,
    description:
      'Extension: how the answer ended. complete; truncated (cut off at the length limit, and its text says so); refused (the model declined to answer). null on user messages.',
  })
  finish_reason!: FinishReason | null;
}

export class ChatView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: Number }) tenant!: number | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ type: UserView, nullable: true }) user!: UserView | null;
  @ApiProperty({ type: [MessageView] }) messages!: MessageView[];
  @ApiProperty({ enum: CHAT_TYPES, description: 'Extension.' }) type!: ChatType;
  @ApiProperty({ nullable: true, type: String, description: 'Extension.' }) feedback!: string | null;
}

export class SearchHitView {
  @ApiProperty({ description: 'Service-side item id.' }) id!: string;
  @ApiProperty() item_id!: string;
  @ApiProperty() collection!: string;
  @ApiProperty({ nullable: true, type: Number }) tenant!: number | null;
  @ApiProperty({ nullable: true, type: String }) url!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty() score!: number;
  @ApiProperty() snippet!: string;
}

/** An item as the search index holds it (admin API): the title and passages its text was indexed as. */
export class ItemChunksView {
  @ApiProperty() title!: string;
  @ApiProperty({ nullable: true, type: String, description: 'The language it was analyzed in (ISO 639-1).' }) language!: string | null;
  @ApiProperty({ type: [String], description: `Its chunks in order: the first ${Bounds.itemChunksListed}.` }) chunks!: string[];
}

export class ProjectView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['single', 'multi'] }) tenancy!: 'single' | 'multi';
  @ApiProperty({ nullable: true, type: String }) instructions!: string | null;
  @ApiProperty(TIMESTAMP) created_at!: string;
}

/** Where a project's index lives and what wrote it. */
export class IndexVersionView {
  @ApiProperty({ enum: ['postgres', 'qdrant'] }) backend!: string;
  @ApiProperty({ description: 'Version of the analysis that wrote its chunks.' }) analyzer!: number;
}

/** A project's search index and its rebuild (the latest one, if any). */
export class ReindexView {
  @ApiProperty() project_id!: string;
  @ApiProperty({ type: IndexVersionView, description: 'The index searches are answered from.' }) index!: IndexVersionView;
  @ApiProperty({ enum: ['none', 'building', 'completed', 'failed'] }) status!: 'none' | 'building' | 'completed' | 'failed';
  @ApiProperty({ enum: ['requested', 'analyzer', 'backend'], nullable: true, type: String }) reason!: 'requested' | 'analyzer' | 'backend' | null;
  @ApiProperty({ type: IndexVersionView, nullable: true, description: 'The index being built (or last built).' }) target!: IndexVersionView | null;
  @ApiProperty({ description: 'Chunks copied into the new index so far.' }) chunks_done!: number;
  @ApiProperty({ description: 'Chunks the old index held when the rebuild started.' }) chunks_total!: number;
  @ApiProperty({ nullable: true, type: String }) started_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) finished_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
}

export class ApiKeyView {
  @ApiProperty() id!: string;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
  @ApiProperty({ description: 'First characters of the key, for recognising it.' }) prefix!: string;
  @ApiProperty({ enum: KEY_KINDS }) kind!: KeyKind;
  @ApiProperty({ type: [String], description: 'Publishable keys: the origins whose pages may use the key (empty for secret keys).' }) origins!: string[];
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ nullable: true, type: String, description: 'When the key was last used, to the minute; null if never.' }) last_used_at!: string | null;
}

/** One administrative change: who made it (a fingerprint of the admin credential, never the credential), from where. */
export class AuditEntryView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: AuditAction;
  @ApiProperty({ description: 'The admin credential used, as "admin-token:" and the first 12 hex digits of its SHA-256.' }) actor!: string;
  @ApiProperty({ description: 'Client address of the request.' }) address!: string;
  @ApiProperty({ nullable: true, type: String }) project_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) key_id!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: "What changed: names, tenancy, a key's name and prefix; never a secret." })
  details!: Record<string, unknown>;
  @ApiProperty(TIMESTAMP) created_at!: string;
}

export class CreatedApiKeyView extends ApiKeyView {
  @ApiProperty({ description: 'The secret key. Shown only in this response.' }) key!: string;
}
