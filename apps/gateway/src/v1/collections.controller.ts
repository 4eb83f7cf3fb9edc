import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { CollectionView, ListCollectionsQueryDto, Subjects } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import type { Request, Response } from 'express';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { envelope } from '../http/pagination';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../auth/caller';
import { ListCache } from './list-cache';
import { Rules } from './rules';

@UseGuards(ApiKeyGuard)
@Controller('v1/collections')
export class CollectionsController {
  constructor(
    private readonly bus: BusClient,
    private readonly rules: Rules,
    private readonly cache: ListCache,
  ) {}

  @Get()
  @ApiOperationDoc({ tag: 'Collections', summary: 'List collections, newest first.', status: 200, list: CollectionView, errors: [422] })
  async list(@CurrentCaller() caller: Caller, @Query() q: ListCollectionsQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { page, perPage } = this.rules.page(q);
    await this.cache.send(req, res, caller.scope, async () => {
      const result = await this.bus.request(Subjects.catalog.collectionsList, { scope: caller.scope, page, perPage, slug: q.slug ?? null });
      return { body: envelope(req, page, perPage, result) };
    });
  }

  @Get(':collection')
  @ApiOperationDoc({ tag: 'Collections', summary: 'Get one collection by id.', status: 200, data: CollectionView, errors: [404] })
  async get(@CurrentCaller() caller: Caller, @Param('collection') id: string): Promise<{ data: CollectionView }> {
    return { data: await this.bus.request(Subjects.catalog.collectionsGet, { scope: caller.scope, id }) };
  }
}
