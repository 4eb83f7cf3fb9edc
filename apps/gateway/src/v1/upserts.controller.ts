import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { Bounds, CreateUpsertDto, fieldLimitErrors, ListUpsertsQueryDto, Subjects, UpsertReceiptView, UpsertView, upsertFieldSources } from '@askdata/contracts';
import { BusClient, ServiceError } from '@askdata/common';
import type { Request } from 'express';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { OperationId } from '../idempotency/idempotency.interceptor';
import { envelope, Envelope } from '../http/pagination';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../auth/caller';
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
  @ApiOperationDoc({
    tag: 'Upserts',
    summary: 'Submit a batch of items (created or updated); answered once stored, processed asynchronously.',
    status: 201,
    data: UpsertReceiptView,
    body: CreateUpsertDto,
    errors: [400, 413, 422],
  })
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateUpsertDto, @OperationId() id?: string): Promise<{ data: UpsertReceiptView }> {
    this.rules.upsertItems(caller.scope, dto.items);
    // A collection declares or infers at most Bounds.collectionFields metadata fields: more in the request alone is
    // refused here, else catalog, which knows the collection's fields, says whether they fit.
    const fields = upsertFieldSources(
      dto.collection?.metadata,
      dto.items.map((i) => i.metadata),
    );
    const beyond = fields.length > Bounds.collectionFields ? fieldLimitErrors(new Set(), fields) : null;
    if (beyond) throw ServiceError.validation(beyond);
    if (fields.length) await this.bus.request(Subjects.catalog.fieldsCheck, { scope: caller.scope, slug: dto.collection?.slug ?? 'default', fields });
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
      id,
    });
    return { data };
  }

  @Get()
  @ApiOperationDoc({ tag: 'Upserts', summary: 'List upserts, newest first.', status: 200, list: UpsertView, errors: [422] })
  async list(@CurrentCaller() caller: Caller, @Query() q: ListUpsertsQueryDto, @Req() req: Request): Promise<Envelope<UpsertView>> {
    const { page, perPage } = this.rules.page(q);
    const result = await this.bus.request(Subjects.ingestion.upsertsList, {
      scope: caller.scope,
      page,
      perPage,
      status: q.status ?? null,
      collection: q.collection ?? null,
    });
    return envelope(req, page, perPage, result);
  }

  @Get(':upsert')
  @ApiOperationDoc({ tag: 'Upserts', summary: 'Get one upsert and its status.', status: 200, data: UpsertView, errors: [404] })
  async get(@CurrentCaller() caller: Caller, @Param('upsert') id: string): Promise<{ data: UpsertView }> {
    return { data: await this.bus.request(Subjects.ingestion.upsertsGet, { scope: caller.scope, id }) };
  }
}
