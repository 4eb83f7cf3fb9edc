import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';

export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.perPageMax, default: Bounds.perPageDefault, description: 'At most PER_PAGE_MAX (default 100).' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  per_page?: number;
}
