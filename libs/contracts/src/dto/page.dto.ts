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

  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.perPageMax, default: Bounds.perPageDefault, description: 'At most PER_PAGE_MAX (default 100); the default is 15, or PER_PAGE_MAX when that is smaller.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  // PER_PAGE_MAX (the gateway's setting) is the real bound; this one only keeps out what no setting allows.
  @Max(Bounds.perPageCeiling, { message: Msg.max(Bounds.perPageCeiling) })
  per_page?: number;
}
