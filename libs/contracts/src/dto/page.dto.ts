import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { Bounds } from '../limits';
import { Msg } from '../messages';
import { QueryInteger } from './validators';

export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: Bounds.pageMax, default: 1 })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  @Max(Bounds.pageMax, { message: Msg.max(Bounds.pageMax) })
  page?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: Bounds.perPageMax,
    default: Bounds.perPageDefault,
    description: 'At most PER_PAGE_MAX (default 100); the default is 15, or PER_PAGE_MAX when that is smaller.',
  })
  @IsOptional()
  @QueryInteger()
  @IsInt({ message: Msg.integer })
  @Min(1, { message: Msg.min(1) })
  // The bound is PER_PAGE_MAX, the gateway's setting: its pipe checks it, so that every page size over it gets one message.
  per_page?: number;
}
