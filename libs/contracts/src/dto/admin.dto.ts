import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';
import { TENANCIES, Tenancy } from '../scope';
import { PageQueryDto } from './page.dto';

export class CreateProjectDto {
  @ApiProperty()
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  name!: string;

  @ApiProperty({ enum: TENANCIES })
  @IsDefined({ message: Msg.required })
  @IsIn(TENANCIES, { message: Msg.oneOf(TENANCIES) })
  tenancy!: Tenancy;

  @ApiPropertyOptional({ description: 'Extra guidance for answers.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(20000, { message: Msg.maxChars(20000) })
  instructions?: string;
}

/** Present, even as null: a project's name and tenancy can be changed but not removed. */
const unlessAbsent = () => ValidateIf((_, value) => value !== undefined);

export class UpdateProjectDto {
  @ApiPropertyOptional()
  @unlessAbsent()
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  name?: string;

  @ApiPropertyOptional({ enum: TENANCIES })
  @unlessAbsent()
  @IsIn(TENANCIES, { message: Msg.oneOf(TENANCIES) })
  tenancy?: Tenancy;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(20000, { message: Msg.maxChars(20000) })
  instructions?: string;
}

/** `secret`: every /v1 route, for servers. `publishable` (`pk_...`): questions only, from the origins it names, for browsers. */
export const KEY_KINDS = ['secret', 'publishable'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
/** Most origins one publishable key may name. */
export const MAX_KEY_ORIGINS = 50;

export class CreateKeyDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: Msg.string })
  @MaxLength(Bounds.nameChars, { message: Msg.maxChars(Bounds.nameChars) })
  name?: string;

  @ApiPropertyOptional({ enum: KEY_KINDS, default: 'secret' })
  @IsOptional()
  @IsIn(KEY_KINDS, { message: Msg.oneOf(KEY_KINDS) })
  kind?: KeyKind;

  @ApiPropertyOptional({ type: [String], description: 'Publishable keys only (required there): the origins (scheme://host[:port]) whose pages may use the key.' })
  @IsOptional()
  @IsArray({ message: Msg.array })
  @ArrayMaxSize(MAX_KEY_ORIGINS, { message: Msg.maxItems(MAX_KEY_ORIGINS) })
  origins?: unknown[];
}

export const AUDIT_ACTIONS = [
  'project.created',
  'project.updated',
  'project.reindexed',
  'key.created',
  'key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export class ListAuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only entries about this project.' })
  @IsOptional()
  @IsUUID('all', { message: Msg.invalid })
  project?: string;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS, { message: Msg.oneOf(AUDIT_ACTIONS) })
  action?: AuditAction;
}
