import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BroadcastContract, Subjects } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import { randomUUID } from 'node:crypto';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterSeconds: number;
}

type Usage = BroadcastContract[typeof Subjects.gateway.rateLimitUsed];

/**
 * A token bucket per API key: RATE_LIMIT_PER_MINUTE requests a minute, refilled continuously (and one per publishable
 * key and client address, `<key id>@<address>`: RATE_LIMIT_PER_ADDRESS_PER_MINUTE), shared by every gateway
 * replica. Each gateway reports what it admitted per key every RATE_LIMIT_SYNC_MS on a broadcast subject, and takes
 * what the others report out of its own buckets, so a key's requests count against one limit whichever replicas they
 * reach; between two reports a key can go over by what the other replicas admitted meanwhile.
 */
@Injectable()
export class RateLimiter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMinute: number;
  private readonly perAddress: number;
  private readonly syncMs: number;
  private readonly instance = randomUUID();
  /** Admitted here since the last report, per key id; null while nobody else is listening (standalone). */
  private unreported: Map<string, number> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly bus: BusClient,
  ) {
    this.perMinute = config.RATE_LIMIT_PER_MINUTE;
    this.perAddress = config.RATE_LIMIT_PER_ADDRESS_PER_MINUTE;
    this.syncMs = config.RATE_LIMIT_SYNC_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.perMinute === 0 && this.perAddress === 0) return;
    await this.share();
  }

  /** Starts hearing and reporting; while the bus cannot be reached, counts alone and tries again every 5 s. */
  private async share(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!(await this.bus.subscribe(Subjects.gateway.rateLimitUsed, (usage) => this.heard(usage)))) return;
    } catch (e) {
      this.logger.warn(`rate limit not shared with other gateways yet (bus: ${(e as Error).message}); counting alone meanwhile`);
      this.retry = setTimeout(() => void this.share(), 5000);
      this.retry.unref();
      return;
    }
    this.unreported = new Map();
    this.timer = setInterval(() => void this.report(), this.syncMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.timer) clearInterval(this.timer);
    await this.report();
  }

  take(key: string, now = Date.now()): RateDecision | null {
    const limit = this.limitOf(key);
    if (limit === 0) return null;
    const b = this.bucket(key, now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      this.unreported?.set(key, (this.unreported.get(key) ?? 0) + 1);
      return { allowed: true, limit, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    const rate = limit / 60000;
    return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)) };
  }

  /** The bucket of one client address using one (publishable) key. */
  takeForAddress(keyId: string, address: string, now = Date.now()): RateDecision | null {
    return this.take(`${keyId}@${address}`, now);
  }

  private limitOf(key: string): number {
    return key.includes('@') ? this.perAddress : this.perMinute;
  }

  /** Another gateway's report: what it admitted counts here too (the bucket may go below zero). */
  heard(usage: Usage, now = Date.now()): void {
    if (usage.from === this.instance || typeof usage.used !== 'object' || usage.used === null) return;
    for (const [key, n] of Object.entries(usage.used)) {
      if (typeof n === 'number' && n > 0) this.bucket(key, now).tokens -= n;
    }
  }

  /** Sends what was admitted here since the last report. */
  async report(): Promise<void> {
    if (!this.unreported?.size) return;
    const used = Object.fromEntries(this.unreported);
    this.unreported = new Map();
    await this.bus.publish(Subjects.gateway.rateLimitUsed, { from: this.instance, used }).catch((e: Error) => {
      this.logger.warn(`rate limit report not sent: ${e.message}`);
    });
  }

  /** The key's bucket, refilled up to now. */
  private bucket(key: string, now: number): Bucket {
    const limit = this.limitOf(key);
    const rate = limit / 60000;
    const b = this.buckets.get(key) ?? { tokens: limit, at: now };
    b.tokens = Math.min(limit, b.tokens + Math.max(0, now - b.at) * rate);
    b.at = Math.max(b.at, now);
    this.buckets.set(key, b);
    if (this.buckets.size > 100000) this.evictFull(now);
    return b;
  }

  private evictFull(now: number): void {
    for (const [k, b] of this.buckets) {
      const limit = this.limitOf(k);
      if (b.tokens + (now - b.at) * (limit / 60000) >= limit) this.buckets.delete(k);
    }
  }
}
