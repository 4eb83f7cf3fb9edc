import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { CreateUpsertDto, ListUpsertsQueryDto, Subjects, UpsertReceiptView, UpsertView } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import type { Request } from 'express';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { envelope, Envelope } from '../http/pagination';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../projects/projects.service';
import { Rules } from './rules';

@UseGuards(ApiKeyGuard)
@Controller('v1/upserts')
export class UpsertsController {
  constructor(
    private readonly bus: BusClient,
    private readonly rules: Rules,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperationDoc({ tag: 'Upserts', summary: 'Submit a batch of items (created or updated); answered once stored, processed asynchronously.', status: 201, data: UpsertReceiptView, body: CreateUpsertDto, errors: [400, 413, 422] })
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateUpsertDto): Promise<{ data: UpsertReceiptView }> {
    this.rules.upsertItems(caller.scope, dto.items);
    const data = await this.bus.request(Subjects.ingestion.upsertsCreate, {
      scope: caller.scope,
      collection: dto.collection
        ? { slug: dto.collection.slug, name: dto.collection.name, source: dto.collection.source, metadata: dto.collection.metadata, language: dto.collection.language ?? null }
        : null,
      items: dto.items.map((i) => ({
        id: String(i.id),
        data: i.data,
        metadata: i.metadata ?? {},
        tenant: i.tenant ?? null,
        url: i.url ?? null,
        language: i.language ?? null,
      })),
    });
    return { data };
  }

  @Get()
  @ApiOperationDoc({ tag: 'Upserts', summary: 'List upserts, newest first.', status: 200, list: UpsertView, errors: [422] })
  async list(@CurrentCaller() caller: Caller, @Query() q: ListUpsertsQueryDto, @Req() req: Request): Promise<Envelope<UpsertView>> {
    const { page, perPage } = this.rules.page(q);
    const result = await this.bus.request(Subjects.ingestion.upsertsList, {
      scope: caller.scope, page, perPage, status: q.status ?? null, collection: q.collection ?? null,
    });
    return envelope(req, page, perPage, result);
  }

  @Get(':upsert')
  @ApiOperationDoc({ tag: 'Upserts', summary: 'Get one upsert and its status.', status: 200, data: UpsertView, errors: [404] })
  async get(@CurrentCaller() caller: Caller, @Param('upsert') id: string): Promise<{ data: UpsertView }> {
    return { data: await this.bus.request(Subjects.ingestion.upsertsGet, { scope: caller.scope, id }) };
  }
}
