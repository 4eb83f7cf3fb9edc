import { Injectable } from '@nestjs/common';
import {
  CreatedWebhookView,
  CreateWebhookDto,
  isUuid,
  Paged,
  UpdateWebhookDto,
  WebhookDeliveryStatus,
  WebhookDeliveryView,
  webhookUrlProblem,
  WebhookView,
} from '@askdata/contracts';
import { isoMicro, ServiceError, uuidv7 } from '@askdata/common';
import { DataSource, EntityManager } from 'typeorm';
import { AdminActor, AuditLog } from '../audit/audit.service';
import { ProjectEntity } from '../projects/project.entity';
import { newWebhookSecret } from './signature';
import { WebhookDeliveryEntity, WebhookEndpointEntity } from './webhook.entity';

/** Endpoints a project may have: bounds every list of them and every event's fan-out. */
export const WEBHOOKS_PER_PROJECT = 20;

/** A project's webhook endpoints (admin API), each change in the audit log, and their delivery logs. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly ds: DataSource,
    private readonly audit: AuditLog,
  ) {}

  /** The secret is returned this once; it is stored as it is, since every delivery is signed with it. */
  async create(projectId: string, dto: CreateWebhookDto, by: AdminActor): Promise<CreatedWebhookView> {
    checkUrl(dto.url);
    const now = new Date();
    const row: WebhookEndpointEntity = {
      id: uuidv7(),
      projectId,
      url: dto.url,
      events: dto.events,
      secret: newWebhookSecret(),
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      consecutiveFailures: 0,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.ds.transaction(async (tx) => {
      await mustExist(tx, projectId);
      const count = await tx.getRepository(WebhookEndpointEntity).countBy({ projectId });
      if (count >= WEBHOOKS_PER_PROJECT) throw ServiceError.conflict(`A project has at most ${WEBHOOKS_PER_PROJECT} webhook endpoints.`);
      await tx.getRepository(WebhookEndpointEntity).insert(row);
      await this.audit.record(tx, by, { action: 'webhook.created', projectId, details: { webhook: row.id, url: row.url, events: row.events.join(',') } });
    });
    return { ...toWebhookView(row), secret: row.secret };
  }

  async list(projectId: string): Promise<WebhookView[]> {
    await mustExist(this.ds.manager, projectId);
    const rows = await this.ds.getRepository(WebhookEndpointEntity).find({ where: { projectId }, order: { id: 'DESC' }, take: WEBHOOKS_PER_PROJECT });
    return rows.map(toWebhookView);
  }

  async get(projectId: string, id: string): Promise<WebhookView> {
    return toWebhookView(await this.find(this.ds.manager, projectId, id));
  }

  /**
   * Changes the URL or the events, or enables (clearing the failures; the pending deliveries are due at once) or
   * disables the endpoint.
   */
  async update(projectId: string, id: string, dto: UpdateWebhookDto, by: AdminActor): Promise<WebhookView> {
    if (dto.url !== undefined) checkUrl(dto.url);
    return this.ds.transaction(async (tx) => {
      const row = await this.find(tx, projectId, id, true);
      const details: Record<string, string | boolean> = { webhook: row.id };
      if (dto.url !== undefined && dto.url !== row.url) details.url = row.url = dto.url;
      if (dto.events !== undefined) details.events = (row.events = dto.events).join(',');
      if (dto.enabled === true && !row.enabled) {
        Object.assign(row, { enabled: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0, failingSince: null });
        await tx.query(`UPDATE gateway.webhook_deliveries SET next_at = now() WHERE endpoint_id = $1 AND status = 'pending'`, [row.id]);
        details.enabled = true;
      } else if (dto.enabled === false && row.enabled) {
        Object.assign(row, { enabled: false, disabledReason: 'Disabled through the admin API.', disabledAt: new Date() });
        details.enabled = false;
      }
      row.updatedAt = new Date();
      await tx.getRepository(WebhookEndpointEntity).save(row);
      await this.audit.record(tx, by, { action: 'webhook.updated', projectId, details });
      return toWebhookView(row);
    });
  }

  /** Deletes the endpoint with its deliveries, pending ones included. */
  async remove(projectId: string, id: string, by: AdminActor): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const row = await this.find(tx, projectId, id, true);
      await tx.getRepository(WebhookDeliveryEntity).delete({ endpointId: row.id });
      await tx.getRepository(WebhookEndpointEntity).delete({ id: row.id });
      await this.audit.record(tx, by, { action: 'webhook.deleted', projectId, details: { webhook: row.id, url: row.url } });
    });
  }

  /** The endpoint's delivery log, newest first (the newest WEBHOOK_LOG_PER_ENDPOINT finished ones, and every pending one). */
  async deliveries(projectId: string, id: string, q: { page: number; perPage: number; status: WebhookDeliveryStatus | null }): Promise<Paged<WebhookDeliveryView>> {
    const endpoint = await this.find(this.ds.manager, projectId, id);
    const [rows, total] = await this.ds.getRepository(WebhookDeliveryEntity).findAndCount({
      where: { endpointId: endpoint.id, ...(q.status ? { status: q.status } : {}) },
      order: { id: 'DESC' },
      skip: (q.page - 1) * q.perPage,
      take: q.perPage,
    });
    return { data: rows.map(toDeliveryView), total };
  }

  private async find(tx: EntityManager, projectId: string, id: string, lock = false): Promise<WebhookEndpointEntity> {
    await mustExist(tx, projectId);
    const row = isUuid(id)
      ? await tx.getRepository(WebhookEndpointEntity).findOne({ where: { id, projectId }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) })
      : null;
    if (!row) throw ServiceError.notFound('Webhook');
    return row;
  }
}

async function mustExist(tx: EntityManager, projectId: string): Promise<void> {
  if (!isUuid(projectId) || !(await tx.getRepository(ProjectEntity).existsBy({ id: projectId }))) throw ServiceError.notFound('Project');
}

/** A webhook URL the service will send to, or a 422 naming what is wrong with it. */
function checkUrl(url: string): void {
  const problem = webhookUrlProblem(url);
  if (problem) throw ServiceError.invalidField('url', problem.replace(':attribute', 'url'));
}

function toWebhookView(row: WebhookEndpointEntity): WebhookView {
  return {
    id: row.id,
    project_id: row.projectId,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: isoMicro(row.disabledAt),
    consecutive_failures: row.consecutiveFailures,
    created_at: isoMicro(row.createdAt),
    updated_at: isoMicro(row.updatedAt),
  };
}

function toDeliveryView(row: WebhookDeliveryEntity): WebhookDeliveryView {
  return {
    id: row.id,
    event_id: row.eventId,
    event: row.eventType,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: isoMicro(row.createdAt),
    last_attempt_at: isoMicro(row.lastAttemptAt),
    next_attempt_at: row.status === 'pending' ? isoMicro(row.nextAt) : null,
    delivered_at: isoMicro(row.deliveredAt),
  };
}
