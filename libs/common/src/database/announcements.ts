import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/** How long `settled` waits for the listeners' confirmations: one that cannot confirm soon stops being trusted. */
const ACK_WAIT_MS = 1000;
const RECONNECT_MS = 1000;
/** The listening connection proves itself this often; three periods without an answer, and it is not trusted. */
const HEARTBEAT_MS = 1000;

export interface AnnouncementsOptions {
  url: string;
  /** Where changes are announced; each listener confirms on `<channel>_heard`. */
  channel: string;
  /** The listening connections' `application_name`, by which the listeners an announcement waits for are counted. */
  listener: string;
  /** What is announced, for the log. */
  what: string;
  /** A change was heard (those announced here included): its payload. */
  heard(payload: string): void;
  /** Listening started or stopped: changes may have been missed in between. */
  reset(): void;
}

type Queryable = { query(sql: string, params: unknown[]): Promise<unknown> };

interface Pending {
  expected: number;
  confirmed: number;
  done: Promise<void>;
  finish: () => void;
}

/**
 * Changes announced to every process listening on a PostgreSQL channel, and confirmed. `announce` inside the
 * transaction that makes a change (NOTIFY is delivered at its commit, and not at all if it rolls back), or `expect`
 * when the transaction announces it otherwise (a trigger); `settled` after the commit waits until every process that
 * was listening then has heard it and confirmed, echoing its payload (or `ACK_WAIT_MS` has passed), so that what the
 * caller is told next holds on every one of them. A payload names one change: no two are the same. A process is
 * `trusted` to have heard every change only while it listens and its connection answers heartbeats; otherwise it
 * must look for itself.
 */
export class Announcements {
  private readonly logger: Logger;
  private readonly ackChannel: string;
  private readonly pending = new Map<string, Pending>();
  private client: Client | null = null;
  private listening = false;
  private lastBeat = 0;
  private closed = false;

  constructor(private readonly options: AnnouncementsOptions) {
    this.logger = new Logger(`Announcements ${options.channel}`);
    this.ackChannel = `${options.channel}_heard`;
  }

  start(): void {
    void this.listen();
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  /** Whether every change announced elsewhere reaches this process now. */
  trusted(now = Date.now()): boolean {
    return this.listening && now - this.lastBeat < 3 * HEARTBEAT_MS;
  }

  /** Announces a change (its payload, at most a few kilobytes); call it inside the transaction that makes it. */
  async announce(tx: Queryable, payload: string = randomUUID()): Promise<string> {
    await this.expect(tx, payload);
    await tx.query('SELECT pg_notify($1, $2)', [this.options.channel, payload]);
    return payload;
  }

  /** A change the transaction announces on the channel itself, with `payload`: `settled` waits for it all the same. */
  async expect(tx: Queryable, payload: string): Promise<string> {
    // Waiting for confirmations starts now: they may come back before the caller gets to settled().
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.pending.set(payload, { expected: Infinity, confirmed: 0, done, finish });
    setTimeout(() => this.confirmed(payload, Infinity), ACK_WAIT_MS).unref();
    // Every process listening now (this one included) will confirm; one that starts later looks for itself first.
    const rows = (await tx.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [
      this.options.listener,
    ])) as Array<{ n: number }>;
    const entry = this.pending.get(payload);
    if (entry) entry.expected = rows[0]?.n ?? 0;
    return payload;
  }

  /** After the commit: waits (briefly) until every process that was listening has heard the change. */
  async settled(payload: string): Promise<void> {
    const entry = this.pending.get(payload);
    if (!entry) return;
    this.confirmed(payload, 0);
    if (this.listening) await entry.done;
  }

  /** Counts confirmations of an announcement made here; done when all expected have come (or on a timeout). */
  private confirmed(payload: string, count: number): void {
    const entry = this.pending.get(payload);
    if (!entry) return;
    entry.confirmed += count;
    if (entry.confirmed < entry.expected) return;
    this.pending.delete(payload);
    entry.finish();
  }

  private async listen(): Promise<void> {
    const { url, channel, listener, what } = this.options;
    while (!this.closed) {
      const client = new Client({ connectionString: url, application_name: listener, connectionTimeoutMillis: 5000, query_timeout: 2 * HEARTBEAT_MS });
      this.client = client;
      let heartbeat: NodeJS.Timeout | undefined;
      try {
        const ended = new Promise<void>((resolve) => {
          client.once('end', resolve);
          client.on('error', (e: Error) => {
            if (!this.closed) this.logger.warn(`${what} listener: ${e.message}`);
            resolve();
          });
        });
        client.on('notification', (n) => {
          const payload = n.payload ?? '';
          if (n.channel === this.ackChannel) return this.confirmed(payload, 1);
          this.options.heard(payload);
          client.query('SELECT pg_notify($1, $2)', [this.ackChannel, payload]).catch(() => undefined);
        });
        await client.connect();
        await client.query(`LISTEN ${channel}`);
        await client.query(`LISTEN ${this.ackChannel}`);
        this.options.reset();
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
        if (!this.closed) this.logger.warn(`${what} listener cannot connect: ${(e as Error).message}`);
      } finally {
        clearInterval(heartbeat);
        this.listening = false;
        this.options.reset();
        // Nothing heard here any more: nobody waits on this connection's confirmations.
        for (const payload of [...this.pending.keys()]) this.confirmed(payload, Infinity);
        await client.end().catch(() => undefined);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  }
}
