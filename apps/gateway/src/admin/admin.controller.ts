import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { ApiKeyView, CreatedApiKeyView, CreateKeyDto, CreateProjectDto, ProjectView, UpdateProjectDto } from '@askdata/contracts';
import { ProjectsService } from '../projects/projects.service';
import { AdminGuard } from './admin.guard';

/** Projects and API keys, outside /v1, for operators. */
@ApiExcludeController()
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('admin')
export class AdminController {
  constructor(private readonly projects: ProjectsService) {}

  @Post('projects')
  async createProject(@Body() dto: CreateProjectDto): Promise<{ data: ProjectView }> {
    return { data: await this.projects.create(dto) };
  }

  @Get('projects')
  async listProjects(): Promise<{ data: ProjectView[] }> {
    return { data: await this.projects.list() };
  }

  @Patch('projects/:id')
  async updateProject(@Param('id') id: string, @Body() dto: UpdateProjectDto): Promise<{ data: ProjectView }> {
    return { data: await this.projects.update(id, dto) };
  }

  @Post('projects/:id/keys')
  async createKey(@Param('id') id: string, @Body() dto: CreateKeyDto): Promise<{ data: CreatedApiKeyView }> {
    return { data: await this.projects.createKey(id, dto.name ?? null) };
  }

  @Get('projects/:id/keys')
  async listKeys(@Param('id') id: string): Promise<{ data: ApiKeyView[] }> {
    return { data: await this.projects.listKeys(id) };
  }

  @Delete('keys/:id')
  @HttpCode(204)
  async revokeKey(@Param('id') id: string): Promise<void> {
    await this.projects.revokeKey(id);
  }
}
