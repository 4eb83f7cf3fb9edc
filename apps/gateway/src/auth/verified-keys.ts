import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Caller } from './caller';

/** Where changes to keys and projects are announced to every gateway: a database URL, or null for one process. */
export const KEY_CHANGES_URL = Symbol('KEY_CHANGES_URL');

const CHANNEL = 'askdata_gateway_keys';
/** Where each gateway confirms it has forgotten, once it has heard a change. */
const ACK_CHANNEL = 'askdata_gateway_keys_heard';
const LISTENER_NAME = 'askdata-gateway-keys';
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
const ACK_WAIT_MS = 1000;
const RECONNECT_MS = 1000;
/** The listening connection proves itself this often; three periods without an answer, and keys are checked again. */
const HEARTBEAT_MS = 1000;

/**
 * API keys verified in the last few seconds, so that most requests learn their project without the database; a key
 * in use is verified again outside any request once past half that time, so a busy key is never looked up in one.
 *
 * Revoking a key or changing a project takes effect at once on every gateway: the change is announced with
 * NOTIFY in the transaction that makes it, every gateway LISTENs, forgets all it has verified when a change arrives
 * and confirms so on a second channel, and the gateway that made the change answers only once every gateway that
 * was listening has confirmed (or a second has passed: a listener that cannot confirm soon stops being trusted).
 * A gateway that is not listening (connecting, its connection lost, or silent for three heartbeats: changes may
 * have been missed) verifies every request in the database. A lookup that started before a change is never
 * remembered after it.
 * Standalone mode has a single gateway, which forgets locally.
 */
@Injectable()
export class VerifiedKeys implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VerifiedKeys.name);
  private readonly entries = new Map<string, { caller: Caller; until: number }>();
  private readonly refreshing = new Set<string>();
  /** Announcements made here, until every listening gateway has confirmed them (or a second passes). */
  private readonly pending = new Map<string, { expected: number; confirmed: number; done: Promise<void>; finish: () => void }>();
  private listener: Client | null = null;
  private listening: boolean;
  private lastBeat = 0;
  private generation = 0;
  private closed = false;

  constructor(@Inject(KEY_CHANGES_URL) private readonly url: string | null) {
    this.listening = url === null;
  }

  onApplicationBootstrap(): void {
    if (this.url) void this.listen(this.url);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
  }

  /** Increases with every change; a lookup remembers its result only if no change came in between. */
  get version(): number {
    return this.generation;
  }

  /** Whether every change made elsewhere reaches this gateway now. */
  private trusted(now: number): boolean {
    return this.url === null || (this.listening && now - this.lastBeat < 3 * HEARTBEAT_MS);
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
    if (!this.url) return null;
    const token = randomUUID();
    // Waiting for confirmations starts now: they may come back before the caller gets to settled().
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry = { expected: Infinity, confirmed: 0, done, finish };
    this.pending.set(token, entry);
    setTimeout(() => this.confirmed(token, Infinity), ACK_WAIT_MS).unref();
    // Every gateway listening now (this one included) will confirm; one that connects later forgets as it starts.
    const rows = (await tx.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [LISTENER_NAME])) as Array<{
      n: number;
    }>;
    entry.expected = rows[0]?.n ?? 0;
    await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, token]);
    return token;
  }

  /** After the commit: forgets here at once, then waits (briefly) until every listening gateway has forgotten. */
  async settled(token: string | null): Promise<void> {
    this.forget();
    const entry = token === null ? undefined : this.pending.get(token);
    if (!entry) return;
    this.confirmed(token!, 0);
    if (this.listening) await entry.done;
  }

  /** Counts confirmations of an announcement made here; done when all expected have come (or on a timeout). */
  private confirmed(token: string, count: number): void {
    const entry = this.pending.get(token);
    if (!entry) return;
    entry.confirmed += count;
    if (entry.confirmed < entry.expected) return;
    this.pending.delete(token);
    entry.finish();
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
  }

  private async listen(url: string): Promise<void> {
    while (!this.closed) {
      const client = new Client({
        connectionString: url,
        application_name: LISTENER_NAME,
        connectionTimeoutMillis: 5000,
        query_timeout: 2 * HEARTBEAT_MS,
      });
      this.listener = client;
      let heartbeat: NodeJS.Timeout | undefined;
      try {
        const ended = new Promise<void>((resolve) => {
          client.once('end', resolve);
          client.on('error', (e: Error) => {
            if (!this.closed) this.logger.warn(`key change listener: ${e.message}`);
            resolve();
          });
        });
        client.on('notification', (n) => {
          if (n.channel === ACK_CHANNEL) return this.confirmed(n.payload ?? '', 1);
          this.forget();
          client.query('SELECT pg_notify($1, $2)', [ACK_CHANNEL, n.payload ?? '']).catch(() => undefined);
        });
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
        await client.query(`LISTEN ${ACK_CHANNEL}`);
        this.forget();
        this.lastBeat = Date.now();
        this.listening = true;
        heartbeat = setInterval(() => {
          client.query('SELECT 1').then(
            () => (this.lastBeat = Date.now()),
            () => void client.end().catch(() => undefined),
          );
        }, HEARTBEAT_MS);
        await ended;
      } catch (e) {
        if (!this.closed) this.logger.warn(`key change listener cannot connect: ${(e as Error).message}`);
      } finally {
        clearInterval(heartbeat);
        this.listening = false;
        this.forget();
        // Nothing heard here any more: nobody waits on this connection's confirmations.
        for (const token of [...this.pending.keys()]) this.confirmed(token, Infinity);
        await client.end().catch(() => undefined);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  }
}
