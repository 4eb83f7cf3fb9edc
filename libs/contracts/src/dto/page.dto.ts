import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';

export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.pageMax, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.pageMax, { message: Msg.max(Bounds.pageMax) })
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.perPageMax, default: Bounds.perPageDefault, description: 'At most PER_PAGE_MAX (default 100).' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.perPageMax, { message: Msg.max(Bounds.perPageMax) })
  per_page?: number;
}
