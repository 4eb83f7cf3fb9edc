import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ItemRecord, ItemView, ListItemsQueryDto, Scope, Subjects, UpsertView } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import type { Request, Response } from 'express';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { envelope } from '../http/pagination';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../auth/caller';
import { ListCache } from './list-cache';
import { Rules } from './rules';
import { RecentUpserts, UpsertViews } from './upsert-views';

@UseGuards(ApiKeyGuard)
@Controller('v1/items')
export class ItemsController {
  constructor(
    private readonly bus: BusClient,
    private readonly rules: Rules,
    private readonly upserts: UpsertViews,
    private readonly cache: ListCache,
  ) {}

  @Get()
  @ApiOperationDoc({ tag: 'Items', summary: 'List items, newest first, each with its collection and upserts.', status: 200, list: ItemView, errors: [422] })
  async list(@CurrentCaller() caller: Caller, @Query() q: ListItemsQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { page, perPage } = this.rules.page(q);
    await this.cache.send(req, res, caller.scope, async () => {
      // A project being loaded: its newest upserts are asked at once, beside catalog.
      const recent = this.upserts.recent(caller.scope);
      const result = await this.bus.request(Subjects.catalog.itemsList, {
        scope: caller.scope,
        page,
        perPage,
        collection: q.collection ?? null,
        tenant: q.tenant ?? null,
        itemId: q.item_id ?? null,
      });
      const data = await this.withUpserts(caller.scope, result.data, recent);
      // An upsert in progress moves on in ingestion without a word: a page showing one is kept only a while.
      const inProgress = [...new Set(data.flatMap((item) => item.upserts.filter((u) => u.status !== 'completed' && u.status !== 'failed').map((u) => u.id)))];
      return { body: envelope(req, page, perPage, { data, total: result.total }), inProgress };
    });
  }

  @Get(':item')
  @ApiOperationDoc({ tag: 'Items', summary: 'Get one item.', status: 200, data: ItemView, errors: [404] })
  async get(@CurrentCaller() caller: Caller, @Param('item') id: string): Promise<{ data: ItemView }> {
    const record = await this.bus.request(Subjects.catalog.itemsGet, { scope: caller.scope, id });
    const [item] = await this.withUpserts(caller.scope, [record]);
    return { data: item };
  }

  /** Items live in catalog, upserts in ingestion: the public Item joins them. */
  private async withUpserts(scope: Scope, records: ItemRecord[], recent?: RecentUpserts): Promise<ItemView[]> {
    const byId = await this.upserts.byIds(scope, [...new Set(records.flatMap((r) => r.upsert_ids))], recent);
    return records.map(({ upsert_ids, ...item }) => ({
      ...item,
      upserts: upsert_ids.map((id) => byId.get(id)).filter((u): u is UpsertView => u !== undefined),
    }));
  }
}
