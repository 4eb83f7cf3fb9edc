import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Scope } from '@askdata/contracts';
import { BusClient, ListChangesHeard, outsideRequest } from '@askdata/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { gatewayMetrics } from '../gateway.metrics';

interface Entry {
  projectId: string;
  body: Buffer;
  etag: string;
  expires: number;
  /** From then on, a request answered with it computes it again in the background. */
  refreshAt: number;
  /** The project's changes announced by catalog when its computation began: it shows at least those. */
  reflects: number;
  /** The upserts it shows in progress. */
  inProgress: readonly string[];
}

/**
 * Where a computation started: the project's generation and the bus connection's epoch (an answer computed across a
 * change of either is not kept), the changes catalog had announced, and when.
 */
export interface Ticket {
  epoch: number;
  generation: number;
  progress: number;
  at: number;
}

/** What a list route computed: the body, and the upserts it shows in progress. */
export interface Computed {
  body: unknown;
  /** Upserts shown `queued` or `processing`: ingestion moves them on without a word, so the answer is in progress. */
  inProgress?: readonly string[];
}

/**
 * How long a gateway takes an upsert said to settle for settling: its completion is committed right after the
 * announcement, and a page computed meanwhile, showing it in progress, is not kept.
 */
const SETTLING_MS = 30_000;
/** Upserts whose application by catalog is remembered (an upsert not remembered settling drops more answers). */
const APPLIED_KEPT = 100_000;

/**
 * Serialized answers of the catalog lists (`GET /v1/items`, `GET /v1/collections`), kept per project. What a list
 * shows changes only while upserts are processed: catalog applies their items (announcing each committed change on a
 * broadcast, `catalog.project.changed.v1`, with the upsert applied, before it answers) and ingestion moves their
 * status, then settles them (`completed` or `failed`), announcing that on the same broadcast, with the upserts' ids,
 * before it commits it. So:
 * - an upsert settling drops its project's answers computed before catalog had applied it (all of them when that is
 *   not known) and those showing it in progress, and an answer computed before its settlement is committed, which
 *   may show it in progress, is not kept: by the time anyone can learn that an upsert completed, every gateway shows
 *   it so;
 * - while upserts are in progress (an answer showing one, or a project whose catalog changed since or while its
 *   answer was computed) an answer is reused for at most `LIST_CACHE_PROGRESS_MS` after its computation began, and
 *   each request it answers has it computed again in the background: a project being loaded is listed from memory,
 *   trailing the load by at most that long (0: such answers are not kept, catalog's changes drop them).
 * While the bus connection is down nothing is kept, and everything is dropped when it drops and when it comes back,
 * since announcements may have been missed; `LIST_CACHE_TTL_MS` bounds how long any answer is reused in any case.
 * `LIST_CACHE_MAX_BYTES` bounds the memory, oldest use out first.
 */
@Injectable()
export class ListCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly entries = new Map<string, Entry>();
  private readonly keysOf = new Map<string, Set<string>>();
  private readonly generations = new Map<string, number>();
  /** Per project, the changes catalog announced. */
  private readonly progress = new Map<string, number>();
  /** Per upsert applied by catalog, the count of its project's changes once it was (in the order heard). */
  private readonly appliedAt = new Map<string, number>();
  /** Per project, the changes an answer must show to be kept: those of the upserts settled. */
  private readonly needed = new Map<string, number>();
  /** Upserts said to settle, until when (in the order heard, so the first expires first). */
  private readonly settling = new Map<string, number>();
  /** Keys whose answers are being computed again (`refresh`). */
  private readonly refreshing = new Set<string>();
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private readonly progressMs: number;
  private bytes = 0;
  private epoch = 0;
  /** Catalog's announcements, as they are heard. */
  private readonly changes: ListChangesHeard;

  constructor(@Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'LIST_CACHE_MAX_BYTES' | 'LIST_CACHE_TTL_MS' | 'LIST_CACHE_PROGRESS_MS'>, bus: BusClient) {
    this.maxBytes = config.LIST_CACHE_MAX_BYTES;
    this.ttlMs = config.LIST_CACHE_TTL_MS;
    this.progressMs = Math.min(config.LIST_CACHE_PROGRESS_MS, config.LIST_CACHE_TTL_MS);
    this.changes = new ListChangesHeard(bus, 'list cache off', {
      heard: ({ projectId, applied, settled }) => (settled ? this.settle(projectId, settled) : this.progressed(projectId, applied)),
      gap: () => this.gap(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.maxBytes === 0 || this.ttlMs === 0) return;
    // While the bus cannot be reached, nothing is kept.
    await this.changes.start();
  }

  onApplicationShutdown(): void {
    this.changes.stop();
  }

  /**
   * Answers a list request: the kept answer when there is one (computed again in the background once due), else
   * `compute()`'s, kept when it may be (`put`). Either way the body goes out with its ETag (`If-None-Match` gets
   * 304, as for every Express answer).
   */
  async send(req: Request, res: Response, scope: Scope, compute: () => Promise<Computed>): Promise<void> {
    // HEAD is answered by the GET route, with the same headers and no body: one key for both.
    const key = `${scope.projectId} ${scope.tenancy} ${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`;
    const now = Date.now();
    const kept = this.get(key, now);
    if (kept) {
      gatewayMetrics.listCache.inc({ outcome: 'hit' });
      if (kept.refreshAt <= now && !this.refreshing.has(key)) void this.refresh(key, scope.projectId, compute);
      return write(res, kept.body, kept.etag);
    }
    const ticket = this.ticket(scope.projectId);
    const { body, inProgress } = await compute();
    const buffer = Buffer.from(JSON.stringify(body));
    const etag = weakEtag(buffer);
    const stored = this.put(ticket, key, scope.projectId, buffer, etag, inProgress);
    gatewayMetrics.listCache.inc({ outcome: stored ? 'miss' : 'uncacheable' });
    write(res, buffer, etag);
  }

  /**
   * Computes a kept answer again once due (past half its time, or at once for an answer in progress), outside the
   * request that found it so (whose answer was the kept one): a list in use is kept up to date without a request
   * waiting for it (standalone, such a request would wait for the write transaction in progress). A failure, or an
   * answer that may not be kept, leaves the kept one to expire (what an upsert's settlement concerns is dropped then).
   */
  private async refresh(key: string, projectId: string, compute: () => Promise<Computed>): Promise<void> {
    this.refreshing.add(key);
    try {
      const ticket = this.ticket(projectId);
      const { body, inProgress } = await outsideRequest(compute);
      const buffer = Buffer.from(JSON.stringify(body));
      this.put(ticket, key, projectId, buffer, weakEtag(buffer), inProgress);
    } catch {
      // Kept as it was, until it expires.
    } finally {
      this.refreshing.delete(key);
    }
  }

  ticket(projectId: string, now = Date.now()): Ticket {
    return { epoch: this.epoch, generation: this.generations.get(projectId) ?? 0, progress: this.progress.get(projectId) ?? 0, at: now };
  }

  get(key: string, now = Date.now()): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.remove(key, entry);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Keeps an answer computed from `ticket` (showing `inProgress` in progress) when it may be; whether it did. */
  put(ticket: Ticket, key: string, projectId: string, body: Buffer, etag: string, inProgress: readonly string[] = [], now = Date.now()): boolean {
    // Off (LIST_CACHE_* at 0) means never subscribed.
    if (!this.changes.trusted()) return false;
    if (ticket.epoch !== this.epoch || ticket.generation !== (this.generations.get(projectId) ?? 0)) return false;
    // It may predate an upsert settled since its computation began.
    if (ticket.progress < (this.needed.get(projectId) ?? 0)) return false;
    if (body.length > this.maxBytes / 8) return false;
    let expires = now + this.ttlMs;
    let refreshAt = now + this.ttlMs / 2;
    if (inProgress.length > 0 || ticket.progress !== (this.progress.get(projectId) ?? 0)) {
      // In progress: kept for a while after it began to be computed, unless it shows an upsert that is settling.
      expires = Math.min(expires, ticket.at + this.progressMs);
      refreshAt = now;
      if (expires <= now || inProgress.some((id) => this.isSettling(id, now))) return false;
    }
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.store(key, { projectId, body, etag, expires, refreshAt, reflects: ticket.progress, inProgress });
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest, entry);
    }
    return true;
  }

  /**
   * Catalog changed the project, for upserts in progress (`applied`): its answers are reused for
   * `LIST_CACHE_PROGRESS_MS` at most from now, computed again by the next request they answer (dropped at once where
   * that is 0).
   */
  progressed(projectId: string, applied: readonly string[] = [], now = Date.now()): void {
    if (this.progressMs === 0) return this.invalidate(projectId);
    const count = (this.progress.get(projectId) ?? 0) + 1;
    this.progress.set(projectId, count);
    for (const id of applied) {
      this.appliedAt.delete(id);
      if (this.appliedAt.size >= APPLIED_KEPT) this.appliedAt.delete(this.appliedAt.keys().next().value as string);
      this.appliedAt.set(id, count);
    }
    for (const key of this.keysOf.get(projectId) ?? []) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      entry.expires = Math.min(entry.expires, now + this.progressMs);
      entry.refreshAt = now;
    }
  }

  /**
   * Upserts of the project are about to be committed `completed` or `failed`: its answers computed before catalog
   * applied them, or showing them in progress, are dropped, and no answer showing them in progress is kept from now on.
   */
  settle(projectId: string, upsertIds: readonly string[], now = Date.now()): void {
    if (this.progressMs === 0) return this.invalidate(projectId);
    for (const [id, until] of this.settling) {
      if (until > now) break;
      this.settling.delete(id);
    }
    // An upsert whose application was not heard may have been applied by any change announced so far.
    const current = this.progress.get(projectId) ?? 0;
    let needed = this.needed.get(projectId) ?? 0;
    for (const id of upsertIds) {
      this.settling.delete(id);
      this.settling.set(id, now + SETTLING_MS);
      needed = Math.max(needed, this.appliedAt.get(id) ?? current);
      this.appliedAt.delete(id);
    }
    this.needed.set(projectId, needed);
    const settled = new Set(upsertIds);
    for (const key of this.keysOf.get(projectId) ?? []) {
      const entry = this.entries.get(key);
      if (entry && (entry.reflects < needed || entry.inProgress.some((id) => settled.has(id)))) this.remove(key, entry);
    }
  }

  private isSettling(upsertId: string, now: number): boolean {
    const until = this.settling.get(upsertId);
    return until !== undefined && until > now;
  }

  /** The project's answers are dropped, and answers being computed for it are not kept. */
  invalidate(projectId: string): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
    for (const key of this.keysOf.get(projectId) ?? []) {
      const entry = this.entries.get(key);
      if (entry) this.remove(key, entry);
    }
  }

  /** The bus connection dropped or came back: announcements may have been missed. */
  private gap(): void {
    this.epoch++;
    this.entries.clear();
    this.keysOf.clear();
    this.bytes = 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private store(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
    const keys = this.keysOf.get(entry.projectId) ?? new Set<string>();
    keys.add(key);
    this.keysOf.set(entry.projectId, keys);
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
    const keys = this.keysOf.get(entry.projectId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOf.delete(entry.projectId);
  }
}

function write(res: Response, body: Buffer, etag: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('ETag', etag);
  res.send(body);
}

/** The weak ETag Express gives a body (the `etag` package's: length and SHA-1), computed once per kept answer. */
export function weakEtag(body: Buffer): string {
  const hash = createHash('sha1').update(body).digest('base64').substring(0, 27);
  return `W/"${body.length.toString(16)}-${hash}"`;
}
