import { Inject, Injectable } from '@nestjs/common';
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

/** A token bucket per API key: RATE_LIMIT_PER_MINUTE requests a minute, refilled continuously. */
@Injectable()
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMinute: number;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.perMinute = config.RATE_LIMIT_PER_MINUTE;
  }

  take(key: string, now = Date.now()): RateDecision | null {
    if (this.perMinute === 0) return null;
    const rate = this.perMinute / 60000;
    const b = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * rate);
    b.at = now;
    this.buckets.set(key, b);
    if (this.buckets.size > 100000) this.evictFull(now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, limit: this.perMinute, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    return { allowed: false, limit: this.perMinute, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)) };
  }

  private evictFull(now: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + (now - b.at) * (this.perMinute / 60000) >= this.perMinute) this.buckets.delete(k);
  }
}
