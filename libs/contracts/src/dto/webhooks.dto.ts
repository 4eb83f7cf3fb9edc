import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsOptional, IsString, ValidateIf } from 'class-validator';
import { Msg } from '../messages';
import { PageQueryDto } from './page.dto';

/** What a webhook endpoint can subscribe to. */
export const WEBHOOK_EVENTS = ['upsert.completed', 'upsert.failed', 'delete.completed', 'feedback.created'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** What an event's `data` is: an upsert's (or delete's) receipt, a chat or a message, as the API shows them. */
export type WebhookResource = 'upsert' | 'chat' | 'message';

/** Longest endpoint URL accepted. */
export const WEBHOOK_URL_CHARS = 2048;

/** An http or https URL with a host and no credentials in it: where a webhook's events are POSTed. */
export function webhookUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string') return Msg.string;
  if (value.length > WEBHOOK_URL_CHARS) return Msg.maxChars(WEBHOOK_URL_CHARS);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return Msg.url;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The :attribute field must be an http or https URL.';
  if (!url.hostname) return Msg.url;
  if (url.username || url.password) return 'The :attribute field must not contain credentials.';
  return null;
}

const events = () => [
  IsArray({ message: Msg.array }),
  ArrayMinSize(1, { message: Msg.minItems(1) }),
  ArrayMaxSize(WEBHOOK_EVENTS.length, { message: Msg.maxItems(WEBHOOK_EVENTS.length) }),
  ArrayUnique({ message: 'The :attribute field must not repeat an event.' }),
  IsIn(WEBHOOK_EVENTS, { each: true, message: Msg.oneOf(WEBHOOK_EVENTS) }),
];
const apply =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((d) => d(target, key));

export class CreateWebhookDto {
  @ApiProperty({ description: 'http or https URL the events are POSTed to.', maxLength: WEBHOOK_URL_CHARS })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  url!: string;

  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true })
  @IsDefined({ message: Msg.required })
  @apply(events())
  events!: WebhookEventType[];
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_URL_CHARS })
  @ValidateIf((_, v) => v !== undefined)
  @IsString({ message: Msg.string })
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENTS, isArray: true })
  @ValidateIf((_, v) => v !== undefined)
  @apply(events())
  events?: WebhookEventType[];

  @ApiPropertyOptional({ description: 'true re-enables an endpoint disabled for failing (and clears its failures); false disables it.' })
  @ValidateIf((_, v) => v !== undefined)
  @IsBoolean({ message: Msg.boolean })
  enabled?: boolean;
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: WEBHOOK_DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(WEBHOOK_DELIVERY_STATUSES, { message: Msg.oneOf(WEBHOOK_DELIVERY_STATUSES) })
  status?: WebhookDeliveryStatus;
}

export class WebhookView {
  @ApiProperty() id!: string;
  @ApiProperty() project_id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true }) events!: WebhookEventType[];
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'Why the service disabled it (null when enabled, or disabled by an admin).' })
  disabled_reason!: string | null;
  @ApiProperty({ nullable: true, type: String }) disabled_at!: string | null;
  @ApiProperty({ description: 'Failed attempts since the last delivered one.' }) consecutive_failures!: number;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

/** The endpoint as created: with its signing secret, shown this once. */
export class CreatedWebhookView extends WebhookView {
  @ApiProperty({ description: 'Signing secret (HMAC-SHA256), shown only in this answer.' }) secret!: string;
}

export class WebhookDeliveryView {
  @ApiProperty() id!: string;
  @ApiProperty() event_id!: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS }) event!: WebhookEventType;
  @ApiProperty({ enum: WEBHOOK_DELIVERY_STATUSES }) status!: WebhookDeliveryStatus;
  @ApiProperty() attempts!: number;
  @ApiProperty({ nullable: true, type: Number, description: "The last attempt's HTTP status (null: no answer)." }) last_status_code!: number | null;
  @ApiProperty({ nullable: true, type: String }) last_error!: string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) last_attempt_at!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'When the next attempt is due (pending only).' }) next_attempt_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) delivered_at!: string | null;
}
