import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ResolvedCollection, Scope, Subjects } from '@askdata/contracts';
import { BusClient, ListChangesHeard } from '@askdata/common';

/** How long a resolution is used at most, announcements or not. */
const KEPT_MS = 60_000;
/** Resolutions kept at most (the least recently used go first). */
const KEPT_MAX = 10_000;

interface Kept {
  collections: ResolvedCollection[];
  expires: number;
}

/**
 * The collections a search names (all of its project's when it names none), with their fields, as catalog resolves
 * them (`catalog.collections.resolve`), kept per project so that a search with a filter or collections does not ask
 * catalog each time. A project's collections and their fields change only as catalog applies upserts and deletes, and
 * catalog announces each such change once committed and before it answers (`catalog.project.changed.v1`, which
 * gateways hear for their lists): hearing one drops what is kept of that project, and a resolution asked before it is
 * not kept. While the bus connection is down nothing is kept, and everything is dropped when it drops and when it
 * comes back (announcements may have been missed); any resolution is used for at most a minute. Unknown collections
 * are catalog's 422 every time: failures are not kept.
 */
@Injectable()
export class CollectionsResolved implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly kept = new Map<string, Kept>();
  /** Per project, the announcements heard (a resolution asked before the last one is not kept). */
  private readonly changes = new Map<string, number>();
  /** Increases whenever the connection drops or comes back. */
  private epoch = 0;
  private readonly changesHeard: ListChangesHeard;

  constructor(private readonly bus: BusClient) {
    this.changesHeard = new ListChangesHeard(bus, 'collections asked of catalog every search', {
      heard: ({ projectId }) => this.changed(projectId),
      gap: () => this.gap(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    // While the bus cannot be reached, nothing is kept.
    await this.changesHeard.start();
  }

  onApplicationShutdown(): void {
    this.changesHeard.stop();
  }

  /** The collections named by `slugs` (null: all of the project's), kept or asked of catalog. */
  async resolve(scope: Scope, slugs: string[] | null): Promise<ResolvedCollection[]> {
    const key = `${scope.projectId} ${JSON.stringify(slugs)}`;
    const now = Date.now();
    const kept = this.kept.get(key);
    if (kept && kept.expires > now) {
      // Most recently used last: the first goes first.
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept.collections;
    }
    this.kept.delete(key);
    const [epoch, changes] = [this.epoch, this.changes.get(scope.projectId) ?? 0];
    const collections = await this.bus.request(Subjects.catalog.collectionsResolve, { scope, slugs, path: 'collections' });
    if (this.changesHeard.trusted() && epoch === this.epoch && changes === (this.changes.get(scope.projectId) ?? 0)) {
      this.kept.set(key, { collections, expires: now + KEPT_MS });
      if (this.kept.size > KEPT_MAX) this.kept.delete(this.kept.keys().next().value!);
    }
    return collections;
  }

  /** A project's collections or fields changed: what is kept of it goes. */
  private changed(projectId: string): void {
    this.changes.set(projectId, (this.changes.get(projectId) ?? 0) + 1);
    const prefix = `${projectId} `;
    for (const key of this.kept.keys()) if (key.startsWith(prefix)) this.kept.delete(key);
    // Counts matter only while a resolution is being asked: bounded by starting over.
    if (this.changes.size > KEPT_MAX) this.gap();
  }

  private gap(): void {
    this.epoch++;
    this.kept.clear();
    this.changes.clear();
  }
}
