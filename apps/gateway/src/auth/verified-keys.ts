import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Caller } from '../projects/projects.service';

/** Where changes to keys and projects are announced to every gateway: a database URL, or null for one process. */
export const KEY_CHANGES_URL = Symbol('KEY_CHANGES_URL');

const CHANNEL = 'askdata_gateway_keys';
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
const ECHO_WAIT_MS = 1000;
const RECONNECT_MS = 1000;
/** The listening connection proves itself this often; three periods without an answer, and keys are checked again. */
const HEARTBEAT_MS = 1000;

/**
 * API keys verified in the last few seconds, so that most requests learn their project without the database.
 *
 * Revoking a key or changing a project takes effect at once on every gateway: the change is announced with
 * NOTIFY in the transaction that makes it, every gateway LISTENs and forgets all it has verified when a change
 * arrives, and the gateway that made the change answers only once the database has delivered the announcement.
 * A gateway that is not listening (connecting, its connection lost, or silent for three heartbeats: changes may
 * have been missed) verifies every request in the database. A lookup that started before a change is never
 * remembered after it.
 * Standalone mode has a single gateway, which forgets locally.
 */
@Injectable()
export class VerifiedKeys implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VerifiedKeys.name);
  private readonly entries = new Map<string, { caller: Caller; until: number }>();
  /** Announcements made here, until they come back (or a second passes). */
  private readonly echoes = new Map<string, { echo: Promise<void>; heard: () => void }>();
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

  remember(hash: string, caller: Caller, since: number, now = Date.now()): void {
    if (!this.trusted(now) || since !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { caller, until: now + TTL_MS });
  }

  /** Announces a change to every gateway; call it inside the transaction that makes the change. */
  async announce(tx: { query(sql: string, params: unknown[]): Promise<unknown> }): Promise<string | null> {
    if (!this.url) return null;
    const token = randomUUID();
    // Waiting for the echo starts now: it may come back before the caller gets to settled().
    let heard!: () => void;
    const echo = new Promise<void>((resolve) => (heard = resolve));
    this.echoes.set(token, { echo, heard });
    setTimeout(() => {
      this.echoes.delete(token);
      heard();
    }, ECHO_WAIT_MS).unref();
    await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, token]);
    return token;
  }

  /** After the commit: forgets here at once, then waits (briefly) until the announcement has gone out. */
  async settled(token: string | null): Promise<void> {
    this.forget();
    const pending = token === null ? undefined : this.echoes.get(token);
    if (pending && this.listening) await pending.echo;
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
  }

  private async listen(url: string): Promise<void> {
    while (!this.closed) {
      const client = new Client({
        connectionString: url, application_name: 'askdata-gateway-keys', connectionTimeoutMillis: 5000, query_timeout: 2 * HEARTBEAT_MS,
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
          this.forget();
          this.echoes.get(n.payload ?? '')?.heard();
        });
        await client.connect();
        await client.query(`LISTEN ${CHANNEL}`);
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
        for (const { heard } of this.echoes.values()) heard();
        await client.end().catch(() => undefined);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  }
}
