import { Injectable } from '@nestjs/common';
import { Scope, Subjects, UpsertView } from '@askdata/contracts';
import { BusClient } from '@askdata/common';

const MAX_ENTRIES = 50_000;
/** How long a project that showed an upsert in progress is taken to be loading (its lists ask for recent upserts at once). */
const LOADING_MS = 10_000;
/** The project's newest upserts asked beside a list of its items while it is loading. */
const RECENT = 100;

/** The upserts a list of a loading project can be shown with: the project's newest, as ingestion had them. */
export type RecentUpserts = Promise<Map<string, UpsertView> | null>;

/**
 * The upserts shown with items, from the ingestion service. An upsert that has finished (`completed` or `failed`)
 * never changes again, so its view is kept and reused: listing items then needs ingestion only for upserts still
 * in progress. While a project is being loaded (an upsert of it was seen in progress within `LOADING_MS`), a list
 * asks ingestion for the project's newest upserts beside its request to catalog instead of after it, and asks for
 * the rest only when some upsert shown is not among them.
 */
@Injectable()
export class UpsertViews {
  private readonly finished = new Map<string, UpsertView>();
  /** Projects seen with an upsert in progress, until when they are taken to be loading. */
  private readonly loading = new Map<string, number>();

  constructor(private readonly bus: BusClient) {}

  /** For a project being loaded, its newest upserts, asked now (null when it is not, or when asking failed). */
  recent(scope: Scope): RecentUpserts {
    const until = this.loading.get(scope.projectId);
    if (until === undefined) return Promise.resolve(null);
    if (until < Date.now()) {
      this.loading.delete(scope.projectId);
      return Promise.resolve(null);
    }
    return this.bus.request(Subjects.ingestion.upsertsRecent, { scope, limit: RECENT }).then(
      (views) => new Map(views.map((v) => [v.id, v])),
      // The ids are then looked up after catalog's answer, as for any project (a failure there fails the list).
      () => null,
    );
  }

  async byIds(scope: Scope, ids: string[], recent: RecentUpserts = Promise.resolve(null)): Promise<Map<string, UpsertView>> {
    const out = new Map<string, UpsertView>();
    let missing: string[] = [];
    for (const id of ids) {
      const known = this.finished.get(`${scope.projectId}:${id}`);
      if (known) out.set(id, known);
      else missing.push(id);
    }
    const asked = missing.length ? await recent : null;
    if (asked) {
      const rest: string[] = [];
      for (const id of missing) {
        const view = asked.get(id);
        // An item shown was applied by its upsert: one still `queued` when ingestion answered has moved on since.
        if (view && view.status !== 'queued') this.heard(scope, view, out);
        else rest.push(id);
      }
      missing = rest;
    }
    if (missing.length === 0) return out;
    for (const view of await this.bus.request(Subjects.ingestion.upsertsLookup, { scope, ids: missing })) this.heard(scope, view, out);
    return out;
  }

  private heard(scope: Scope, view: UpsertView, out: Map<string, UpsertView>): void {
    out.set(view.id, view);
    if (view.status === 'completed' || view.status === 'failed') {
      if (this.finished.size >= MAX_ENTRIES) this.finished.delete(this.finished.keys().next().value as string);
      this.finished.set(`${scope.projectId}:${view.id}`, view);
    } else {
      if (!this.loading.has(scope.projectId) && this.loading.size >= MAX_ENTRIES) this.loading.delete(this.loading.keys().next().value as string);
      this.loading.set(scope.projectId, Date.now() + LOADING_MS);
    }
  }
}
