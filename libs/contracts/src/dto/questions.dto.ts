import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsDefined, IsEmail, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';
import { CHAT_TYPES } from '../views';
import { LANGUAGE_DESCRIPTION } from '../language';
import { AsSent, IsLanguageCode, IsNonEmptyArray, IsNotBlank, IsPlainObject, QueryInteger } from './validators';
import { PageQueryDto } from './page.dto';

const QUESTION_LANGUAGE = `${LANGUAGE_DESCRIPTION} The question's language; detected when not given.`;
const STREAM_DESCRIPTION = 'Extension: stream the answer as Server-Sent Events (as `Accept: text/event-stream` does).';

export class IdentifierDto {
  @ApiProperty({ description: 'Your id for the user.' })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @MaxLength(Bounds.identifierChars, { message: Msg.maxChars(Bounds.identifierChars) })
  id!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  @IsEmail({}, { message: Msg.email })
  email?: string;
}

export const FILTER_DESCRIPTION =
  `Extension. Filter on metadata fields: {field: value} for equality, {field: {"$in": [...1 to ${Bounds.filterInValues} values]}}, ` +
  '{field: {"$gt"|"$gte"|"$lt"|"$lte": n}}, {field: {"$ne": v}}. Fields must be declared or inferred in the collections.';

/** The fields a question and a search share. */
class QuestionFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: Bounds.questionChars, description: 'The question.' })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @Matches(/\S/, { message: Msg.required })
  text!: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, description: 'Collection slugs that restrict the question (at least one; omit the field to search all collections).' })
  @IsOptional()
  @IsArray({ message: Msg.array })
  @IsNonEmptyArray({ message: Msg.someSlugs })
  collections?: string[];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: Bounds.tenantMax, description: 'Required when the project is multi-tenant.' })
  @IsOptional()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.tenantMax, { message: Msg.max(Bounds.tenantMax) })
  tenant?: number | null;

  @ApiPropertyOptional({ type: IdentifierDto })
  @IsOptional()
  @IsPlainObject()
  @ValidateNested({ message: Msg.object })
  @Type(() => IdentifierDto)
  identifier?: IdentifierDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: FILTER_DESCRIPTION })
  @IsOptional()
  @AsSent()
  @IsPlainObject()
  filter?: Record<string, unknown>;

  @ApiPropertyOptional({ description: QUESTION_LANGUAGE })
  @IsOptional()
  @IsLanguageCode()
  language?: string;
}

export class QuestionDto extends QuestionFieldsDto {
  @ApiPropertyOptional({ description: STREAM_DESCRIPTION })
  @IsOptional()
  @IsBoolean({ message: Msg.boolean })
  stream?: boolean;
}

export class SearchDto extends QuestionFieldsDto {
  /** Not taken (a search answers at once): the route refuses it with 422 saying so, and the document does not show it. */
  @Allow()
  stream?: unknown;

  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.searchLimitMax, default: Bounds.searchLimitDefault })
  @IsOptional()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  limit?: number;
}

export class FollowUpDto {
  @ApiProperty({ minLength: 1, maxLength: Bounds.questionChars })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @Matches(/\S/, { message: Msg.required })
  text!: string;

  @ApiPropertyOptional({ description: QUESTION_LANGUAGE })
  @IsOptional()
  @IsLanguageCode()
  language?: string;

  @ApiPropertyOptional({ description: STREAM_DESCRIPTION })
  @IsOptional()
  @IsBoolean({ message: Msg.boolean })
  stream?: boolean;
}

export class FeedbackDto {
  @ApiProperty({ minLength: 1, maxLength: Bounds.feedbackChars, example: 'positive' })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @IsNotBlank()
  feedback!: string;
}

export class ListChatsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.tenantMax })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.tenantMax, { message: Msg.max(Bounds.tenantMax) })
  tenant?: number;

  @ApiPropertyOptional({ enum: [...CHAT_TYPES, 'all'], default: 'chat' })
  @IsOptional()
  @IsIn([...CHAT_TYPES, 'all'], { message: Msg.oneOf([...CHAT_TYPES, 'all']) })
  type?: 'chat' | 'query' | 'all';

  @ApiPropertyOptional({ description: 'Identifier id of the user.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @MaxLength(Bounds.identifierChars, { message: Msg.maxChars(Bounds.identifierChars) })
  user?: string;
}
