import { Injectable } from '@nestjs/common';
import {
  ApiKeyView,
  CreatedApiKeyView,
  ItemChunksView,
  CreateKeyDto,
  CreateProjectDto,
  isUuid,
  KeyKind,
  ProjectView,
  ReindexView,
  Subjects,
  UpdateProjectDto,
} from '@askdata/contracts';
import { BusClient, isoMicro, outsideRequest, ServiceError, uuidv7 } from '@askdata/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditDetails } from '../audit/audit-entry.entity';
import { AdminActor, AuditLog } from '../audit/audit.service';
import { CREDENTIAL_PREFIX_CHARS } from '../auth/auth-failures';
import { Caller } from '../auth/caller';
import { checkOrigins, KEY_PREFIXES, kindOfKey } from '../auth/key-kinds';
import { KeyUsage } from '../auth/key-usage';
import { UnknownKeys } from '../auth/unknown-keys';
import { VerifiedKeys } from '../auth/verified-keys';
import { ApiKeyEntity, ProjectEntity } from './project.entity';
import { gatewayMetrics } from '../gateway.metrics';

/** The key id of an operator acting in a project with the admin token: no key's usage or rate limit. */
export const OPERATOR_KEY_ID = 'operator';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

@Injectable()
export class ProjectsService {
  constructor(
    private readonly ds: DataSource,
    private readonly verified: VerifiedKeys,
    private readonly unknown: UnknownKeys,
    private readonly audit: AuditLog,
    private readonly bus: BusClient,
    private readonly usage: KeyUsage,
  ) {}

  /** Every change below is recorded in the audit log, in the transaction that makes it, as made `by` an admin credential. */
  async create(dto: CreateProjectDto, by: AdminActor): Promise<ProjectView> {
    const now = new Date();
    const row: ProjectEntity = {
      id: uuidv7(),
      name: dto.name,
      tenancy: dto.tenancy,
      instructions: dto.instructions ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await this.ds.transaction(async (tx) => {
      await tx.getRepository(ProjectEntity).insert(row);
      await this.audit.record(tx, by, {
        action: 'project.created',
        projectId: row.id,
        details: { name: row.name, tenancy: row.tenancy, instructions: row.instructions !== null },
      });
    });
    return toProjectView(row);
  }

  async list(): Promise<ProjectView[]> {
    const rows = await this.ds.getRepository(ProjectEntity).find({ order: { id: 'DESC' } });
    return rows.map(toProjectView);
  }

  async count(): Promise<number> {
    return this.ds.getRepository(ProjectEntity).count();
  }

  /** Tenancy and instructions travel with every verified key, so every gateway forgets its keys (see VerifiedKeys). */
  async update(id: string, dto: UpdateProjectDto, by: AdminActor): Promise<ProjectView> {
    const { row, token } = await this.ds.transaction(async (tx) => {
      const repo = tx.getRepository(ProjectEntity);
      const found = isUuid(id) ? await repo.findOneBy({ id }) : null;
      if (!found) throw ServiceError.notFound('Project');
      const changes: AuditDetails = {};
      if (dto.name !== undefined && dto.name !== found.name) changes.name = { from: found.name, to: dto.name };
      if (dto.tenancy !== undefined && dto.tenancy !== found.tenancy) changes.tenancy = { from: found.tenancy, to: dto.tenancy };
      if (dto.instructions !== undefined && dto.instructions !== found.instructions) changes.instructions = 'changed';
      if (dto.name !== undefined) found.name = dto.name;
      if (dto.tenancy !== undefined) found.tenancy = dto.tenancy;
      if (dto.instructions !== undefined) found.instructions = dto.instructions;
      found.updatedAt = new Date();
      await repo.save(found);
      await this.audit.record(tx, by, { action: 'project.updated', projectId: found.id, details: changes });
      return { row: found, token: await this.verified.announce(tx) };
    });
    await this.verified.settled(token);
    return toProjectView(row);
  }

  /** The only moment the secret exists outside the caller: it is returned once and stored hashed. */
  async createKey(projectId: string, dto: CreateKeyDto, by: AdminActor): Promise<CreatedApiKeyView> {
    if (!isUuid(projectId)) throw ServiceError.notFound('Project');
    const kind = dto.kind ?? 'secret';
    const origins = checkOrigins(kind, dto.origins);
    const key = KEY_PREFIXES[kind] + randomBytes(32).toString('base64url');
    const row: ApiKeyEntity = {
      id: uuidv7(),
      projectId,
      name: dto.name ?? null,
      prefix: key.slice(0, CREDENTIAL_PREFIX_CHARS),
      keyHash: hashKey(key),
      kind,
      origins,
      createdAt: new Date(),
      lastUsedAt: null,
    };
    await this.ds.transaction(async (tx) => {
      if (!(await tx.getRepository(ProjectEntity).existsBy({ id: projectId }))) throw ServiceError.notFound('Project');
      await tx.getRepository(ApiKeyEntity).insert(row);
      await this.audit.record(tx, by, { action: 'key.created', projectId, keyId: row.id, details: { name: row.name, prefix: row.prefix, kind, origins } });
    });
    return { ...toKeyView(row), key };
  }

  async listKeys(projectId: string): Promise<ApiKeyView[]> {
    await this.mustExist(projectId);
    await this.usage.flush();
    const rows = await this.ds.getRepository(ApiKeyEntity).find({ where: { projectId }, order: { id: 'DESC' } });
    return rows.map(toKeyView);
  }

  /**
   * Starts a rebuild of the project's search index from what the service stores (or returns the one under way);
   * searches read the old index until the new one is complete. Recorded in the audit log once retrieval has it.
   */
  async reindex(projectId: string, by: AdminActor): Promise<ReindexView> {
    await this.mustExist(projectId);
    const view = await this.bus.request(Subjects.retrieval.reindexStart, { projectId });
    await this.ds.transaction((tx) => this.audit.record(tx, by, { action: 'project.reindexed', projectId, details: { backend: view.target?.backend ?? view.index.backend } }));
    return view;
  }

  /** The project's search index (its backend and analyzer version) and its latest rebuild's progress. */
  async reindexStatus(projectId: string): Promise<ReindexView> {
    await this.mustExist(projectId);
    return this.bus.request(Subjects.retrieval.reindexGet, { projectId });
  }

  /** The caller an operator (admin token) is while acting in a project's /v1 (the console): a secret key's rights. */
  async operatorIn(projectId: string): Promise<Caller> {
    const row = isUuid(projectId) ? await this.ds.getRepository(ProjectEntity).findOneBy({ id: projectId }) : null;
    if (!row) throw ServiceError.notFound('Project');
    return { keyId: OPERATOR_KEY_ID, scope: { projectId: row.id, tenancy: row.tenancy }, instructions: row.instructions, kind: 'secret', origins: [] };
  }

  /** An item of the project as the search index holds it (404 for an unknown project or item). */
  async itemChunks(projectId: string, itemId: string): Promise<ItemChunksView> {
    const { scope } = await this.operatorIn(projectId);
    if (!isUuid(itemId)) throw ServiceError.notFound('Item');
    await this.bus.request(Subjects.catalog.itemsGet, { scope, id: itemId });
    return this.bus.request(Subjects.retrieval.chunksList, { projectId, itemId });
  }

  private async mustExist(projectId: string): Promise<void> {
    if (!isUuid(projectId) || !(await this.ds.getRepository(ProjectEntity).existsBy({ id: projectId }))) {
      throw ServiceError.notFound('Project');
    }
  }

  /** Revocation deletes the hash: the next request with that key is refused, by every gateway (see VerifiedKeys). */
  async revokeKey(id: string, by: AdminActor): Promise<void> {
    if (!isUuid(id)) throw ServiceError.notFound('API key');
    const token = await this.ds.transaction(async (tx) => {
      const repo = tx.getRepository(ApiKeyEntity);
      const found = await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!found) throw ServiceError.notFound('API key');
      await repo.delete({ id });
      await this.audit.record(tx, by, { action: 'key.revoked', projectId: found.projectId, keyId: id, details: { name: found.name, prefix: found.prefix } });
      return this.verified.announce(tx);
    });
    await this.verified.settled(token);
  }

  /**
   * Resolves an API key to its project; null when unknown. The hash comparison is constant-time. A key the
   * database did not know a moment ago is not looked up again (UnknownKeys).
   */
  async resolveKey(key: string): Promise<Caller | null> {
    if (kindOfKey(key) === null || key.length > 200) return null;
    const hash = hashKey(key);
    const known = this.verified.get(hash);
    if (known) {
      if (this.verified.refreshDue(hash)) void this.refresh(hash);
      return known;
    }
    if (this.unknown.has(hash)) {
      gatewayMetrics.unknownKeys.inc({ source: 'cache' });
      return null;
    }
    const version = this.verified.version;
    const caller = await this.lookUp(hash);
    if (caller) this.verified.remember(hash, caller, version);
    else {
      gatewayMetrics.unknownKeys.inc({ source: 'database' });
      this.unknown.add(hash);
    }
    return caller;
  }

  /** Verifies a key in use again, outside the request that found it due; on failure it expires as it would have. */
  private async refresh(hash: string): Promise<void> {
    const version = this.verified.version;
    const caller = await outsideRequest(() => this.lookUp(hash)).catch(() => undefined);
    this.verified.refreshed(hash, caller, version);
  }

  private async lookUp(hash: string): Promise<Caller | null> {
    const rows = await this.ds.query<
      Array<{ key_id: string; key_hash: string; kind: KeyKind; origins: string[]; project_id: string; tenancy: 'single' | 'multi'; instructions: string | null }>
    >(
      `SELECT k.id AS key_id, k.key_hash, k.kind, k.origins, p.id AS project_id, p.tenancy, p.instructions
         FROM gateway.api_keys k JOIN gateway.projects p ON p.id = k.project_id
        WHERE k.key_hash = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    return { keyId: row.key_id, scope: { projectId: row.project_id, tenancy: row.tenancy }, instructions: row.instructions, kind: row.kind, origins: row.origins };
  }
}

export function toProjectView(row: ProjectEntity): ProjectView {
  return { id: row.id, name: row.name, tenancy: row.tenancy, instructions: row.instructions, created_at: isoMicro(row.createdAt) };
}

function toKeyView(row: ApiKeyEntity): ApiKeyView {
  return { id: row.id, name: row.name, prefix: row.prefix, kind: row.kind, origins: row.origins, created_at: isoMicro(row.createdAt), last_used_at: isoMicro(row.lastUsedAt) };
}
