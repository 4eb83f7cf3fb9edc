import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsDefined, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';
import { FIELD_TYPES, UPSERT_STATUSES, UpsertStatus } from '../views';
import type { FieldDeclaration } from '../bus';
import { LANGUAGE_DESCRIPTION } from '../language';
import { AsSent, IsFieldDeclarations, IsItemId, IsLanguageCode, IsNonEmptyPlainObject, IsPlainObject } from './validators';
import { PageQueryDto } from './page.dto';

export class UpsertItemDto {
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'Client-chosen id, 1..255 characters.' })
  @IsDefined({ message: Msg.required })
  @IsItemId()
  id!: string | number;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Content that is searched.' })
  @IsDefined({ message: Msg.required })
  @AsSent()
  @IsNonEmptyPlainObject()
  data!: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `Context for filtering. Each key with a string, number, boolean or date value (or an array of one of them) becomes a field of the collection; a collection declares or infers at most ${Bounds.collectionFields} fields, and an upsert that would take it beyond is 422 at the first field over (\`items.<i>.metadata.<field>\`).`,
  })
  @IsOptional()
  @AsSent()
  @IsPlainObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: Bounds.tenantMax, description: 'Required when the project is multi-tenant.' })
  @IsOptional()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.tenantMax, { message: Msg.max(Bounds.tenantMax) })
  tenant?: number | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(2048, { message: Msg.maxChars(2048) })
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { message: Msg.url })
  url?: string;

  @ApiPropertyOptional({ description: `${LANGUAGE_DESCRIPTION} The language of the item's data; defaults to the collection's, else it is detected.` })
  @IsOptional()
  @IsLanguageCode()
  language?: string;
}

export class CollectionInputDto {
  @ApiProperty({ pattern: Bounds.slugPattern.source })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @Matches(Bounds.slugPattern, { message: Msg.slug })
  slug!: string;

  @ApiPropertyOptional({ description: 'Defaults to the slug.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  name?: string;

  @ApiPropertyOptional({ description: 'Defaults to "api".' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  source?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: [...FIELD_TYPES] },
        options: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] }, minItems: 1 },
        description: {
          type: 'string',
          minLength: 1,
          maxLength: Bounds.fieldDescriptionChars,
          description: "Extension: what the field holds, in words; answers match it like the field's name.",
        },
      },
    },
    description: `Declares fields: {<field>: {type: string|number|boolean|date|enum, options?, description?}}. Declared and inferred fields together: at most ${Bounds.collectionFields} per collection (422 at \`collection.metadata.<field>\` beyond).`,
  })
  @IsOptional()
  @AsSent()
  @IsFieldDeclarations()
  metadata?: Record<string, FieldDeclaration>;

  @ApiPropertyOptional({ description: `${LANGUAGE_DESCRIPTION} The language of the collection's items, unless an item gives its own.` })
  @IsOptional()
  @IsLanguageCode()
  language?: string;
}

export class CreateUpsertDto {
  @ApiProperty({ type: [UpsertItemDto], minItems: 1, maxItems: Bounds.upsertItems })
  @IsDefined({ message: Msg.required })
  @IsArray({ message: Msg.array })
  @ArrayMinSize(1, { message: Msg.minItems(1) })
  @IsPlainObject({ each: true, message: Msg.eachObject })
  @ValidateNested({ each: true, message: Msg.object })
  @Type(() => UpsertItemDto)
  items!: UpsertItemDto[];

  @ApiPropertyOptional({ type: CollectionInputDto, description: 'Target collection; default slug "default".' })
  @IsOptional()
  @IsPlainObject()
  @ValidateNested({ message: Msg.object })
  @Type(() => CollectionInputDto)
  collection?: CollectionInputDto;
}

export class ListUpsertsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: UPSERT_STATUSES })
  @IsOptional()
  @IsIn(UPSERT_STATUSES, { message: Msg.oneOf(UPSERT_STATUSES) })
  status?: UpsertStatus;

  @ApiPropertyOptional({ description: 'Collection slug.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @Matches(Bounds.slugPattern, { message: Msg.slug })
  collection?: string;
}
