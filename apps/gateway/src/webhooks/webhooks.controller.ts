import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { CreatedWebhookView, CreateWebhookDto, ListDeliveriesQueryDto, UpdateWebhookDto, WebhookDeliveryView, WebhookView } from '@askdata/contracts';
import type { Request } from 'express';
import { AdminGuard, CurrentAdmin } from '../admin/admin.guard';
import { AdminActor } from '../audit/audit.service';
import { envelope, Envelope } from '../http/pagination';
import { Rules } from '../v1/rules';
import { WebhooksService } from './webhooks.service';

/** A project's webhook endpoints and their delivery logs (admin API, docs/api.md "Webhooks"). */
@ApiExcludeController()
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('admin/projects/:project/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly rules: Rules,
  ) {}

  @Post()
  async create(@Param('project') project: string, @Body() dto: CreateWebhookDto, @CurrentAdmin() by: AdminActor): Promise<{ data: CreatedWebhookView }> {
    return { data: await this.webhooks.create(project, dto, by) };
  }

  @Get()
  async list(@Param('project') project: string): Promise<{ data: WebhookView[] }> {
    return { data: await this.webhooks.list(project) };
  }

  @Get(':id')
  async get(@Param('project') project: string, @Param('id') id: string): Promise<{ data: WebhookView }> {
    return { data: await this.webhooks.get(project, id) };
  }

  @Patch(':id')
  async update(@Param('project') project: string, @Param('id') id: string, @Body() dto: UpdateWebhookDto, @CurrentAdmin() by: AdminActor): Promise<{ data: WebhookView }> {
    return { data: await this.webhooks.update(project, id, dto, by) };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('project') project: string, @Param('id') id: string, @CurrentAdmin() by: AdminActor): Promise<void> {
    await this.webhooks.remove(project, id, by);
  }

  @Get(':id/deliveries')
  async deliveries(@Param('project') project: string, @Param('id') id: string, @Query() q: ListDeliveriesQueryDto, @Req() req: Request): Promise<Envelope<WebhookDeliveryView>> {
    const { page, perPage } = this.rules.page(q);
    return envelope(req, page, perPage, await this.webhooks.deliveries(project, id, { page, perPage, status: q.status ?? null }));
  }
}
