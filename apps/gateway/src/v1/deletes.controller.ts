import { Controller, Delete, HttpCode, Param, Query, UseGuards } from '@nestjs/common';
import { Bounds, DeleteItemQueryDto, DeleteTarget, Subjects, UpsertReceiptView } from '@askdata/contracts';
import { BusClient, ServiceError } from '@askdata/common';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { OperationId } from '../idempotency/idempotency.interceptor';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../auth/caller';

const QUEUED = "Queued among the project's upserts and applied in order with them; poll the receipt at GET /v1/upserts/{id}.";

/**
 * Deletes (extension): each is queued durably among the project's upserts and answered 202 with a receipt that is
 * polled like an upsert's. Ids of things that do not exist (or belong to another project) are 404; an item named by
 * the client's id is accepted whether or not it exists yet, since upserts queued before the delete may create it.
 */
@UseGuards(ApiKeyGuard)
@Controller('v1')
export class DeletesController {
  constructor(private readonly bus: BusClient) {}

  @Delete('items/:item')
  @HttpCode(202)
  @ApiOperationDoc({ tag: 'Items', summary: `Delete one item by its service id. ${QUEUED}`, status: 202, data: UpsertReceiptView, errors: [404] })
  async item(@CurrentCaller() caller: Caller, @Param('item') id: string, @OperationId() op?: string): Promise<{ data: UpsertReceiptView }> {
    const item = await this.bus.request(Subjects.catalog.itemsGet, { scope: caller.scope, id });
    return this.queue(caller, { kind: 'item', id: item.id }, op);
  }

  @Delete('items')
  @HttpCode(202)
  @ApiOperationDoc({
    tag: 'Items',
    summary: `Delete one item by the client's id (item_id) in a collection (slug, default \`default\`). ${QUEUED}`,
    status: 202,
    data: UpsertReceiptView,
    errors: [422],
  })
  async clientItem(@CurrentCaller() caller: Caller, @Query() q: DeleteItemQueryDto, @OperationId() op?: string): Promise<{ data: UpsertReceiptView }> {
    return this.queue(caller, { kind: 'client_item', collection: q.collection ?? 'default', itemId: q.item_id }, op);
  }

  @Delete('collections/:collection')
  @HttpCode(202)
  @ApiOperationDoc({ tag: 'Collections', summary: `Delete a collection by id, with its items. ${QUEUED}`, status: 202, data: UpsertReceiptView, errors: [404] })
  async collection(@CurrentCaller() caller: Caller, @Param('collection') id: string, @OperationId() op?: string): Promise<{ data: UpsertReceiptView }> {
    const collection = await this.bus.request(Subjects.catalog.collectionsGet, { scope: caller.scope, id });
    return this.queue(caller, { kind: 'collection', id: collection.id, slug: collection.slug }, op);
  }

  @Delete('tenants/:tenant')
  @HttpCode(202)
  @ApiOperationDoc({
    tag: 'Tenants',
    summary: `Delete everything of one tenant: its items, chats, messages, and the users left without a chat. ${QUEUED}`,
    status: 202,
    data: UpsertReceiptView,
    errors: [404],
  })
  async tenant(@CurrentCaller() caller: Caller, @Param('tenant') tenant: string, @OperationId() op?: string): Promise<{ data: UpsertReceiptView }> {
    const n = /^[1-9][0-9]{0,9}$/.test(tenant) ? Number(tenant) : NaN;
    if (!(n <= Bounds.tenantMax)) throw ServiceError.notFound('Tenant');
    return this.queue(caller, { kind: 'tenant', tenant: n }, op);
  }

  private async queue(caller: Caller, target: DeleteTarget, id?: string): Promise<{ data: UpsertReceiptView }> {
    return { data: await this.bus.request(Subjects.ingestion.deletesCreate, { scope: caller.scope, target, id }) };
  }
}
