import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, Matches, Max, Min, ValidateNested, IsString } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';
import { IdentifierDto } from './questions.dto';
import { IsPlainObject } from './validators';

/** Bounds of a session token's life, in seconds. */
export const SessionBounds = { ttlDefault: 3600, ttlMin: 60, ttlMax: 86400, collections: 100 } as const;

/** `POST /v1/sessions` (secret keys): what a browser's questions are bound to while the token lives. */
export class CreateSessionDto {
  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.tenantMax, description: 'Required when the project is multi-tenant.' })
  @IsOptional()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.tenantMax, { message: Msg.max(Bounds.tenantMax) })
  tenant?: number;

  @ApiPropertyOptional({ type: IdentifierDto, description: "The user the session's chats belong to." })
  @IsOptional()
  @IsPlainObject()
  @ValidateNested({ message: Msg.object })
  @Type(() => IdentifierDto)
  identifier?: IdentifierDto;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: SessionBounds.collections,
    description: "Collection slugs the session's questions are restricted to (all when absent).",
  })
  @IsOptional()
  @IsArray({ message: Msg.array })
  @ArrayMinSize(1, { message: Msg.minItems(1) })
  @ArrayMaxSize(SessionBounds.collections, { message: Msg.maxItems(SessionBounds.collections) })
  @IsString({ each: true, message: Msg.string })
  @Matches(Bounds.slugPattern, { each: true, message: Msg.slug })
  collections?: string[];

  @ApiPropertyOptional({ minimum: SessionBounds.ttlMin, maximum: SessionBounds.ttlMax, default: SessionBounds.ttlDefault, description: 'Seconds the token lives.' })
  @IsOptional()
  @IsInt({ message: Msg.integer })
  @Min(SessionBounds.ttlMin, { message: Msg.min(SessionBounds.ttlMin) })
  @Max(SessionBounds.ttlMax, { message: Msg.max(SessionBounds.ttlMax) })
  ttl?: number;
}

export class SessionView {
  @ApiProperty({ description: 'The session token, for the Askdata-Session header of requests made with a publishable key.' }) token!: string;
  @ApiProperty({ description: 'When the token stops being accepted (ISO-8601 UTC).' }) expires_at!: string;
}
