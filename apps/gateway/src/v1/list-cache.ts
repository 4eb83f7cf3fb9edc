import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Scope, Subjects } from '@askdata/contracts';
import { BusClient, outsideRequest } from '@askdata/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { gatewayMetrics } from '../gateway.metrics';

interface Entry {
  projectId: string;
  body: Buffer;
  etag: string;
  expires: number;
}

/** Where a computation started: an answer computed since a change of its project, or a gap, is not kept. */
export interface Ticket {
  epoch: number;
  generation: number;
}

/** What a list route computed: the body, and whether it can only change through catalog. */
export interface Computed {
  body: unknown;
  cacheable: boolean;
}

/**
 * Serialized answers of the catalog lists (`GET /v1/items`, `GET /v1/collections`), kept per project until catalog
 * says the project changed. Catalog announces every committed change on a broadcast before it answers the write
 * (`catalog.project.changed.v1`), so by the time anyone can learn that an upsert completed, every gateway has
 * dropped that project's lists. What catalog alone does not decide is not kept: a page showing an upsert still in
 * progress (its status moves in ingestion). While the bus connection is down nothing is kept, and everything is
 * dropped when it drops and when it comes back, since announcements may have been missed; `LIST_CACHE_TTL_MS` bounds
 * how long any answer is reused in any case. An answer whose project changed while it was being computed is not kept
 * (the change may have come after the read). `LIST_CACHE_MAX_BYTES` bounds the memory, oldest use out first.
 */
@Injectable()
export class ListCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ListCache.name);
  private readonly entries = new Map<string, Entry>();
  private readonly keysOf = new Map<string, Set<string>>();
  private readonly generations = new Map<string, number>();
  /** Keys whose answers are being computed again (`refresh`). */
  private readonly refreshing = new Set<string>();
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private bytes = 0;
  private epoch = 0;
  /** Subscribed to the announcements. */
  private subscribed = false;
  /** The bus connection is up (as far as its events tell). */
  private connected = true;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'LIST_CACHE_MAX_BYTES' | 'LIST_CACHE_TTL_MS'>,
    private readonly bus: BusClient,
  ) {
    this.maxBytes = config.LIST_CACHE_MAX_BYTES;
    this.ttlMs = config.LIST_CACHE_TTL_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.maxBytes === 0 || this.ttlMs === 0) return;
    this.bus.watchConnection({
      lost: () => this.gap(false),
      restored: () => this.gap(true),
    });
    await this.listen();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
  }

  /** Hears catalog's announcements; while the bus cannot be reached, keeps nothing and tries again every 5 s. */
  private async listen(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.bus.subscribe(Subjects.catalog.changed, ({ projectId }) => this.invalidate(projectId));
      this.subscribed = true;
    } catch (e) {
      this.logger.warn(`list cache off until the bus can be reached (${(e as Error).message})`);
      this.retry = setTimeout(() => void this.listen(), 5000);
      this.retry.unref();
    }
  }

  /**
   * Answers a list request: the kept answer when there is one, else `compute()`'s, kept when it says it may be.
   * Either way the body goes out with its ETag (`If-None-Match` gets 304, as for every Express answer).
   */
  async send(req: Request, res: Response, scope: Scope, compute: () => Promise<Computed>): Promise<void> {
    // HEAD is answered by the GET route, with the same headers and no body: one key for both.
    const key = `${scope.projectId} ${scope.tenancy} ${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`;
    const now = Date.now();
    const kept = this.get(key, now);
    if (kept) {
      gatewayMetrics.listCache.inc({ outcome: 'hit' });
      if (kept.expires - now < this.ttlMs / 2 && !this.refreshing.has(key)) void this.refresh(key, scope.projectId, compute);
      return write(res, kept.body, kept.etag);
    }
    const ticket = this.ticket(scope.projectId);
    const { body, cacheable } = await compute();
    const buffer = Buffer.from(JSON.stringify(body));
    const etag = weakEtag(buffer);
    gatewayMetrics.listCache.inc({ outcome: cacheable ? 'miss' : 'uncacheable' });
    if (cacheable) this.put(ticket, key, scope.projectId, buffer, etag);
    write(res, buffer, etag);
  }

  /**
   * Computes a kept answer past half its time again, outside the request that found it so (whose answer was the kept
   * one): a list in use is kept up to date without a request waiting for it (standalone, such a request would wait
   * for the write transaction in progress). An answer that may no longer be kept is dropped; a failure leaves the
   * kept one to expire.
   */
  private async refresh(key: string, projectId: string, compute: () => Promise<Computed>): Promise<void> {
    this.refreshing.add(key);
    try {
      const ticket = this.ticket(projectId);
      const { body, cacheable } = await outsideRequest(compute);
      const buffer = Buffer.from(JSON.stringify(body));
      if (cacheable) this.put(ticket, key, projectId, buffer, weakEtag(buffer));
      else {
        const entry = this.entries.get(key);
        if (entry) this.remove(key, entry);
      }
    } catch {
      // Kept as it was, until it expires.
    } finally {
      this.refreshing.delete(key);
    }
  }

  ticket(projectId: string): Ticket {
    return { epoch: this.epoch, generation: this.generations.get(projectId) ?? 0 };
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

  put(ticket: Ticket, key: string, projectId: string, body: Buffer, etag: string, now = Date.now()): void {
    // Off (LIST_CACHE_* at 0) means never subscribed.
    if (!this.subscribed || !this.connected) return;
    if (ticket.epoch !== this.epoch || ticket.generation !== (this.generations.get(projectId) ?? 0)) return;
    if (body.length > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.store(key, { projectId, body, etag, expires: now + this.ttlMs });
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest, entry);
    }
  }

  /** Catalog changed the project: its answers are dropped, and answers being computed for it are not kept. */
  invalidate(projectId: string): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
    for (const key of this.keysOf.get(projectId) ?? []) {
      const entry = this.entries.get(key);
      if (entry) this.remove(key, entry);
    }
  }

  /** The bus connection dropped or came back: announcements may have been missed. */
  gap(connected: boolean): void {
    this.epoch++;
    this.connected = connected;
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
