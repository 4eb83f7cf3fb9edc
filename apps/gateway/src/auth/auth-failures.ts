import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { clientAddress } from './client-address';
import { gatewayMetrics } from '../gateway.metrics';

/** Which credential a request presented: an `Api-Key`, or the admin API's bearer token. */
export type CredentialKind = 'api_key' | 'admin_token';

interface Window {
  failures: number;
  /** Attempts being verified right now: counted against an address that has failed already, so that a parallel
   * burst cannot outrun its count. */
  pending: number;
  /** When the window (opened by its first failure) closes and the count starts again. */
  until: number;
}

/** Length of the prefix a credential is counted under: the prefix the admin API shows for each key. */
export const CREDENTIAL_PREFIX_CHARS = 10;
/** Tracked windows at most (addresses and prefixes of both kinds); the oldest go first beyond that. */
const MAX_WINDOWS = 100_000;

/** What a log line may show of a credential: its prefix, never more than half of it. */
export function maskCredential(credential: string): string {
  return `${credential.slice(0, Math.min(CREDENTIAL_PREFIX_CHARS, Math.floor(credential.length / 2)))}…`;
}

/**
 * Limits on failed authentication, so that guessing keys or the admin token is slow and seen:
 * - per client address (see {@link clientAddress}): after AUTH_FAILURES_PER_ADDRESS failures within
 *   AUTH_FAILURE_WINDOW_SECONDS, every further attempt from it is 429 until the window closes, without looking
 *   anything up;
 * - per credential prefix (the first 10 characters presented), from any address: after AUTH_FAILURES_PER_CREDENTIAL
 *   failures, a wrong credential with that prefix is 429; a right one still passes, so nobody can lock a key's
 *   holder out by guessing at its prefix.
 * Counted per kind of credential and per gateway. Every failure is counted in metrics and logged (info) with the
 * client address and the masked credential, the start of a block as a warning; refused attempts are only counted,
 * so a flood cannot flood the log.
 */
@Injectable()
export class AuthFailures {
  private readonly logger = new Logger('Auth');
  private readonly windows = new Map<string, Window>();
  private readonly perAddress: number;
  private readonly perPrefix: number;
  private readonly windowMs: number;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.perAddress = config.AUTH_FAILURES_PER_ADDRESS;
    this.perPrefix = config.AUTH_FAILURES_PER_CREDENTIAL;
    this.windowMs = config.AUTH_FAILURE_WINDOW_SECONDS * 1000;
  }

  /**
   * Authenticates `credential` with `verify` under the limits: its result when it accepts the credential, otherwise
   * a 401 (or a 429 with Retry-After once a limit is reached) in the contract's shape.
   */
  async authenticate<T>(kind: CredentialKind, req: Request, res: Response, credential: string, verify: () => Promise<T | null> | T | null, now = Date.now()): Promise<T> {
    const address = clientAddress(req);
    const addressKey = `${kind} address ${address}`;
    const prefixKey = `${kind} prefix ${credential.slice(0, CREDENTIAL_PREFIX_CHARS)}`;
    const byAddress = this.open(addressKey, now);
    if (byAddress && byAddress.failures + byAddress.pending >= this.perAddress) {
      gatewayMetrics.authFailures.inc({ credential: kind, outcome: 'limited' });
      return this.refuse(res, byAddress, this.perAddress, now);
    }
    if (byAddress) byAddress.pending++;
    let accepted: T | null;
    try {
      accepted = await verify();
    } finally {
      if (byAddress) byAddress.pending--;
    }
    if (accepted !== null) return accepted;
    const a = this.count(addressKey, now);
    const p = this.count(prefixKey, now);
    if (a.failures === this.perAddress) this.warnBlocked(kind, `client address ${address}`, credential, a, 'every attempt from it');
    if (p.failures === this.perPrefix) this.warnBlocked(kind, `credential prefix (last from ${address})`, credential, p, 'wrong ones');
    if (p.failures > this.perPrefix) {
      gatewayMetrics.authFailures.inc({ credential: kind, outcome: 'limited' });
      return this.refuse(res, p, this.perPrefix, now);
    }
    gatewayMetrics.authFailures.inc({ credential: kind, outcome: 'rejected' });
    this.logger.log(`${kind} rejected from ${address}: ${maskCredential(credential)}`);
    throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  }

  /** The window of `key`, if one is open. */
  private open(key: string, now: number): Window | null {
    const w = this.windows.get(key);
    if (!w) return null;
    if (w.until > now) return w;
    this.windows.delete(key);
    return null;
  }

  private count(key: string, now: number): Window {
    let w = this.open(key, now);
    if (!w) {
      if (this.windows.size >= MAX_WINDOWS) this.prune(now);
      w = { failures: 0, pending: 0, until: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.failures++;
    return w;
  }

  private prune(now: number): void {
    for (const [key, w] of this.windows) if (w.until <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_WINDOWS) break;
      this.windows.delete(key);
    }
  }

  private refuse(res: Response, w: Window, limit: number, now: number): never {
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil((w.until - now) / 1000))));
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', '0');
    throw new ServiceError(ErrorCode.RateLimited, 'Too many failed authentication attempts. Retry after the time given in Retry-After.');
  }

  private warnBlocked(kind: CredentialKind, what: string, credential: string, w: Window, refused: string): void {
    this.logger.warn(`${kind}: ${w.failures} failed attempts by ${what}, ${maskCredential(credential)}; ${refused} refused until ${new Date(w.until).toISOString()}`);
  }
}
