import { Injectable } from '@nestjs/common';
import {
  ApiKeyView, CreatedApiKeyView, CreateProjectDto, isUuid, ProjectView, Scope, UpdateProjectDto,
} from '@askdata/contracts';
import { isoMicro, ServiceError, uuidv7 } from '@askdata/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiKeyEntity, ProjectEntity } from './project.entity';

export interface Caller {
  keyId: string;
  scope: Scope;
  instructions: string | null;
}

const KEY_PREFIX = 'ak_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

@Injectable()
export class ProjectsService {
  constructor(private readonly ds: DataSource) {}

  async create(dto: CreateProjectDto): Promise<ProjectView> {
    const now = new Date();
    const row: ProjectEntity = {
      id: uuidv7(), name: dto.name, tenancy: dto.tenancy, instructions: dto.instructions ?? null, createdAt: now, updatedAt: now,
    };
    await this.ds.getRepository(ProjectEntity).insert(row);
    return toProjectView(row);
  }

  async list(): Promise<ProjectView[]> {
    const rows = await this.ds.getRepository(ProjectEntity).find({ order: { id: 'DESC' } });
    return rows.map(toProjectView);
  }

  async count(): Promise<number> {
    return this.ds.getRepository(ProjectEntity).count();
  }

  async update(id: string, dto: UpdateProjectDto): Promise<ProjectView> {
    const repo = this.ds.getRepository(ProjectEntity);
    const row = isUuid(id) ? await repo.findOneBy({ id }) : null;
    if (!row) throw ServiceError.notFound('Project');
    if (dto.name !== undefined) row.name = dto.name;
    if (dto.tenancy !== undefined) row.tenancy = dto.tenancy;
    if (dto.instructions !== undefined) row.instructions = dto.instructions;
    row.updatedAt = new Date();
    await repo.save(row);
    return toProjectView(row);
  }

  /** The only moment the secret exists outside the caller: it is returned once and stored hashed. */
  async createKey(projectId: string, name: string | null): Promise<CreatedApiKeyView> {
    if (!isUuid(projectId) || !(await this.ds.getRepository(ProjectEntity).existsBy({ id: projectId }))) {
      throw ServiceError.notFound('Project');
    }
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const row: ApiKeyEntity = {
      id: uuidv7(), projectId, name, prefix: key.slice(0, 10), keyHash: hashKey(key), createdAt: new Date(),
    };
    await this.ds.getRepository(ApiKeyEntity).insert(row);
    return { ...toKeyView(row), key };
  }

  async listKeys(projectId: string): Promise<ApiKeyView[]> {
    if (!isUuid(projectId) || !(await this.ds.getRepository(ProjectEntity).existsBy({ id: projectId }))) {
      throw ServiceError.notFound('Project');
    }
    const rows = await this.ds.getRepository(ApiKeyEntity).find({ where: { projectId }, order: { id: 'DESC' } });
    return rows.map(toKeyView);
  }

  /** Revocation deletes the hash: the next request with that key is refused. */
  async revokeKey(id: string): Promise<void> {
    const result = isUuid(id) ? await this.ds.getRepository(ApiKeyEntity).delete({ id }) : { affected: 0 };
    if (!result.affected) throw ServiceError.notFound('API key');
  }

  /** Resolves an API key to its project; null when unknown. The hash comparison is constant-time. */
  async resolveKey(key: string): Promise<Caller | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
    const hash = hashKey(key);
    const rows = (await this.ds.query(
      `SELECT k.id AS key_id, k.key_hash, p.id AS project_id, p.tenancy, p.instructions
         FROM gateway.api_keys k JOIN gateway.projects p ON p.id = k.project_id
        WHERE k.key_hash = $1`,
      [hash],
    )) as Array<{ key_id: string; key_hash: string; project_id: string; tenancy: 'single' | 'multi'; instructions: string | null }>;
    const row = rows[0];
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    return { keyId: row.key_id, scope: { projectId: row.project_id, tenancy: row.tenancy }, instructions: row.instructions };
  }
}

export function toProjectView(row: ProjectEntity): ProjectView {
  return { id: row.id, name: row.name, tenancy: row.tenancy, instructions: row.instructions, created_at: isoMicro(row.createdAt) };
}

function toKeyView(row: ApiKeyEntity): ApiKeyView {
  return { id: row.id, name: row.name, prefix: row.prefix, created_at: isoMicro(row.createdAt) };
}
