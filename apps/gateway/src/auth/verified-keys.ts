import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Announcements } from '@askdata/common';
import type { Caller } from './caller';

/** Where changes to keys and projects are announced to every gateway: a database URL, or null for one process. */
export const KEY_CHANGES_URL = Symbol('KEY_CHANGES_URL');

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * API keys verified in the last few seconds, so that most requests learn their project without the database; a key
 * in use is verified again outside any request once past half that time, so a busy key is never looked up in one.
 *
 * Revoking a key or changing a project takes effect at once on every gateway: the change is announced with
 * NOTIFY in the transaction that makes it, every gateway LISTENs, forgets all it has verified when a change arrives
 * and confirms so on a second channel, and the gateway that made the change answers only once every gateway that
 * was listening has confirmed (or a second has passed: a listener whose heartbeat is late stops trusting itself
 * before that, `Announcements`). A gateway that is not listening (connecting, its connection lost, or its last
 * heartbeat answered over 750 ms ago: changes may be waiting unread) verifies every request in the database. A
 * lookup that started before a change is never remembered after it. Standalone mode has a single gateway, which
 * forgets locally.
 */
@Injectable()
export class VerifiedKeys implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly entries = new Map<string, { caller: Caller; until: number }>();
  private readonly refreshing = new Set<string>();
  /** Changes announced to every gateway (a gateway confirms once it has forgotten); none standalone. */
  private readonly changes: Announcements | null;
  private generation = 0;

  constructor(@Inject(KEY_CHANGES_URL) url: string | null) {
    const forget = () => this.forget();
    this.changes = url ? new Announcements({ url, channel: 'askdata_gateway_keys', listener: 'askdata-gateway-keys', what: 'key change', heard: forget, reset: forget }) : null;
  }

  onApplicationBootstrap(): void {
    this.changes?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.changes?.stop();
  }

  /** Increases with every change; a lookup remembers its result only if no change came in between. */
  get version(): number {
    return this.generation;
  }

  /** Whether every change made elsewhere reaches this gateway now. */
  private trusted(now: number): boolean {
    return this.changes === null || this.changes.trusted(now);
  }

  get(hash: string, now = Date.now()): Caller | undefined {
    if (!this.trusted(now)) return undefined;
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.until > now) return entry.caller;
    this.entries.delete(hash);
    return undefined;
  }

  /**
   * Whether a key verified over half its time ago should be verified again now, outside the request (once at a time:
   * `refreshed` ends it), so that a key in use is never looked up in a request's path.
   */
  refreshDue(hash: string, now = Date.now()): boolean {
    const entry = this.entries.get(hash);
    if (!entry || entry.until - now > TTL_MS / 2 || this.refreshing.has(hash)) return false;
    this.refreshing.add(hash);
    return true;
  }

  /** A refresh's outcome: the key's caller, null when the key is gone, undefined when the lookup failed (kept as it was). */
  refreshed(hash: string, caller: Caller | null | undefined, since: number): void {
    this.refreshing.delete(hash);
    if (caller) this.remember(hash, caller, since);
    else if (caller === null) this.entries.delete(hash);
  }

  remember(hash: string, caller: Caller, since: number, now = Date.now()): void {
    if (!this.trusted(now) || since !== this.generation) return;
    // Most recently verified last, so a key in use is not the first to go when the map is full.
    if (!this.entries.delete(hash) && this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { caller, until: now + TTL_MS });
  }

  /** Announces a change to every gateway; call it inside the transaction that makes the change. */
  async announce(tx: { query(sql: string, params: unknown[]): Promise<unknown> }): Promise<string | null> {
    return this.changes ? this.changes.announce(tx) : null;
  }

  /** After the commit: forgets here at once, then waits (briefly) until every listening gateway has forgotten. */
  async settled(token: string | null): Promise<void> {
    this.forget();
    if (token !== null) await this.changes?.settled(token);
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
  }
}
