import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';
import { PageQueryDto } from './page.dto';
import { QueryInteger } from './validators';

export class ListItemsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Collection slug.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @Matches(Bounds.slugPattern, { message: Msg.slug })
  collection?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.tenantMax })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.tenantMax, { message: Msg.max(Bounds.tenantMax) })
  tenant?: number;

  @ApiPropertyOptional({ description: 'The client-supplied item id.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @MaxLength(Bounds.itemIdChars, { message: Msg.maxChars(Bounds.itemIdChars) })
  item_id?: string;
}

export class ListCollectionsQueryDto extends PageQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: Msg.string })
  @Matches(Bounds.slugPattern, { message: Msg.slug })
  slug?: string;
}

/** `DELETE /v1/items?item_id=&collection=`: an item by the client's id. */
export class DeleteItemQueryDto {
  @ApiProperty({ description: 'The client-supplied item id.' })
  @IsDefined({ message: Msg.required })
  @IsString({ message: Msg.string })
  @MinLength(1, { message: Msg.minChars(1) })
  @MaxLength(Bounds.itemIdChars, { message: Msg.maxChars(Bounds.itemIdChars) })
  item_id!: string;

  @ApiPropertyOptional({ description: 'Collection slug; `default` when absent.' })
  @IsOptional()
  @IsString({ message: Msg.string })
  @Matches(Bounds.slugPattern, { message: Msg.slug })
  collection?: string;
}
