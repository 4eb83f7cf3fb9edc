import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import {
  ApiKeyView,
  AuditEntryView,
  CreatedApiKeyView,
  CreateKeyDto,
  CreateProjectDto,
  ItemChunksView,
  ListAuditQueryDto,
  ProjectView,
  ReindexView,
  UpdateProjectDto,
} from '@askdata/contracts';
import type { Request } from 'express';
import { AdminActor, AuditLog } from '../audit/audit.service';
import { envelope, Envelope } from '../http/pagination';
import { ProjectsService } from '../projects/projects.service';
import { Rules } from '../v1/rules';
import { AdminGuard, CurrentAdmin } from './admin.guard';

/** Projects and API keys, outside /v1, for operators. */
@ApiExcludeController()
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('admin')
export class AdminController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
    private readonly rules: Rules,
  ) {}

  @Post('projects')
  async createProject(@Body() dto: CreateProjectDto, @CurrentAdmin() by: AdminActor): Promise<{ data: ProjectView }> {
    return { data: await this.projects.create(dto, by) };
  }

  @Get('projects')
  async listProjects(): Promise<{ data: ProjectView[] }> {
    return { data: await this.projects.list() };
  }

  @Patch('projects/:id')
  async updateProject(@Param('id') id: string, @Body() dto: UpdateProjectDto, @CurrentAdmin() by: AdminActor): Promise<{ data: ProjectView }> {
    return { data: await this.projects.update(id, dto, by) };
  }

  /** Rebuilds the project's search index in the background (202); searches read the old one until it is complete. */
  @Post('projects/:id/reindex')
  @HttpCode(202)
  async reindex(@Param('id') id: string, @CurrentAdmin() by: AdminActor): Promise<{ data: ReindexView }> {
    return { data: await this.projects.reindex(id, by) };
  }

  @Get('projects/:id/reindex')
  async reindexStatus(@Param('id') id: string): Promise<{ data: ReindexView }> {
    return { data: await this.projects.reindexStatus(id) };
  }

  /** An item (its service-side id) as the search index holds it: title, language, chunks (the console). */
  @Get('projects/:id/items/:item/chunks')
  async itemChunks(@Param('id') id: string, @Param('item') item: string): Promise<{ data: ItemChunksView }> {
    return { data: await this.projects.itemChunks(id, item) };
  }

  @Post('projects/:id/keys')
  async createKey(@Param('id') id: string, @Body() dto: CreateKeyDto, @CurrentAdmin() by: AdminActor): Promise<{ data: CreatedApiKeyView }> {
    return { data: await this.projects.createKey(id, dto, by) };
  }

  @Get('projects/:id/keys')
  async listKeys(@Param('id') id: string): Promise<{ data: ApiKeyView[] }> {
    return { data: await this.projects.listKeys(id) };
  }

  @Delete('keys/:id')
  @HttpCode(204)
  async revokeKey(@Param('id') id: string, @CurrentAdmin() by: AdminActor): Promise<void> {
    await this.projects.revokeKey(id, by);
  }

  /** The audit log, newest first: every change above, by which admin credential, from where. */
  @Get('audit')
  async listAudit(@Query() q: ListAuditQueryDto, @Req() req: Request): Promise<Envelope<AuditEntryView>> {
    const { page, perPage } = this.rules.page(q);
    const result = await this.audit.list({ page, perPage, projectId: q.project ?? null, action: q.action ?? null });
    return envelope(req, page, perPage, result);
  }
}
