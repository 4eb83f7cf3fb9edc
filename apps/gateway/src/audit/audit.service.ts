import { Injectable } from '@nestjs/common';
import { AuditAction, AuditEntryView, Paged } from '@askdata/contracts';
import { isoMicro, uuidv7 } from '@askdata/common';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AuditDetails, AuditEntryEntity } from './audit-entry.entity';

/** Who made an admin change: the credential's fingerprint and the client's address. */
export interface AdminActor {
  actor: string;
  address: string;
}

/** The name an admin credential goes by in the audit log: enough to tell tokens apart, nothing to use. */
export function credentialFingerprint(credential: string): string {
  return `admin-token:${createHash('sha256').update(credential, 'utf8').digest('hex').slice(0, 12)}`;
}

export interface AuditChange {
  action: AuditAction;
  projectId: string | null;
  keyId?: string | null;
  details: AuditDetails;
}

/** The audit log of admin actions (`gateway.audit_log`): written in the transaction of the change it records. */
@Injectable()
export class AuditLog {
  constructor(private readonly ds: DataSource) {}

  async record(tx: EntityManager, by: AdminActor, change: AuditChange): Promise<void> {
    const row: AuditEntryEntity = {
      id: uuidv7(),
      action: change.action,
      actor: by.actor,
      address: by.address.slice(0, 64),
      projectId: change.projectId,
      keyId: change.keyId ?? null,
      details: change.details,
      createdAt: new Date(),
    };
    await tx.getRepository(AuditEntryEntity).insert(row);
  }

  async list(q: { page: number; perPage: number; projectId: string | null; action: AuditAction | null }): Promise<Paged<AuditEntryView>> {
    const where = { ...(q.projectId ? { projectId: q.projectId } : {}), ...(q.action ? { action: q.action } : {}) };
    const [rows, total] = await this.ds.getRepository(AuditEntryEntity).findAndCount({
      where,
      order: { id: 'DESC' },
      skip: (q.page - 1) * q.perPage,
      take: q.perPage,
    });
    return { data: rows.map(toView), total };
  }
}

function toView(row: AuditEntryEntity): AuditEntryView {
  return {
    id: row.id,
    action: row.action,
    actor: row.actor,
    address: row.address,
    project_id: row.projectId,
    key_id: row.keyId,
    details: row.details,
    created_at: isoMicro(row.createdAt),
  };
}
