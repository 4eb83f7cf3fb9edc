import { Injectable } from '@nestjs/common';
import { Scope, Subjects, UpsertView } from '@askdata/contracts';
import { BusClient } from '@askdata/common';

const MAX_ENTRIES = 50_000;

/**
 * The upserts shown with items, from the ingestion service. An upsert that has finished (`completed` or `failed`)
 * never changes again, so its view is kept and reused: listing items then needs ingestion only for upserts still
 * in progress.
 */
@Injectable()
export class UpsertViews {
  private readonly finished = new Map<string, UpsertView>();

  constructor(private readonly bus: BusClient) {}

  async byIds(scope: Scope, ids: string[]): Promise<Map<string, UpsertView>> {
    const out = new Map<string, UpsertView>();
    const missing: string[] = [];
    for (const id of ids) {
      const known = this.finished.get(`${scope.projectId}:${id}`);
      if (known) out.set(id, known);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    for (const view of await this.bus.request(Subjects.ingestion.upsertsLookup, { scope, ids: missing })) {
      out.set(view.id, view);
      if (view.status === 'completed' || view.status === 'failed') {
        if (this.finished.size >= MAX_ENTRIES) this.finished.delete(this.finished.keys().next().value as string);
        this.finished.set(`${scope.projectId}:${view.id}`, view);
      }
    }
    return out;
  }
}
