import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/**
 * The listening connection proves itself this often; a process whose last answer is older than three periods does
 * not trust what it heard (its event loop or its connection stalled: a change may be waiting unread).
 */
const HEARTBEAT_MS = 250;
const TRUSTED_MS = 3 * HEARTBEAT_MS;
/**
 * How long `settled` waits for confirmations, from the commit: longer than a listener trusts itself without an
 * answer, so one that has not confirmed by then no longer searches with what it heard.
 */
const ACK_WAIT_MS = 1000;
/** A listener whose connection ran no statement for this long is not waited for (its process is gone or stalled). */
const LIVE_S = 2;
/** A heartbeat that takes this long ends the connection (a new one is made). */
const HEARTBEAT_TIMEOUT_MS = 2000;
const RECONNECT_MS = 1000;
/** An announcement whose transaction never got to `settled` (rolled back) is forgotten after this long. */
const ABANDONED_MS = 30_000;

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
  /** The listening connections (backend pids) still to confirm; null until counted. */
  waiting: Set<number> | null;
  done: Promise<void>;
  finish: () => void;
}

/**
 * Changes announced to every process listening on a PostgreSQL channel, and confirmed. `announce` inside the
 * transaction that makes a change (NOTIFY is delivered at its commit, and not at all if it rolls back), or `expect`
 * when the transaction announces it otherwise (a trigger); `settled` after the commit waits until every listening
 * connection that was live then (a statement in the last `LIVE_S`) has heard it and confirmed, echoing its payload
 * from that connection, or `ACK_WAIT_MS` has passed, so that what the caller is told next holds on every one of them.
 * A payload names one change: no two are the same. A process is `trusted` to have heard every change only while it
 * listens and its connection answered a heartbeat in the last `TRUSTED_MS`, less than the wait: one that has not
 * confirmed when the wait ends does not trust what it heard, and must look for itself.
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
    return this.listening && now - this.lastBeat < TRUSTED_MS;
  }

  /** Announces a change (its payload, at most a few kilobytes); call it inside the transaction that makes it. */
  async announce(tx: Queryable, payload: string = randomUUID()): Promise<string> {
    await this.expect(tx, payload);
    await tx.query('SELECT pg_notify($1, $2)', [this.options.channel, payload]);
    return payload;
  }

  /** A change the transaction announces on the channel itself, with `payload`: `settled` waits for it all the same. */
  async expect(tx: Queryable, payload: string): Promise<string> {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const entry: Pending = { waiting: null, done, finish };
    this.pending.set(payload, entry);
    setTimeout(() => this.finish(payload), ABANDONED_MS).unref();
    // Every live listening connection now (this process's included) will confirm; one that starts later looks for
    // itself first.
    const rows = (await tx.query(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()
         AND (state_change IS NULL OR state_change > clock_timestamp() - make_interval(secs => $2))`,
      [this.options.listener, LIVE_S],
    )) as Array<{ pid: number }>;
    entry.waiting = new Set(rows.map((r) => r.pid));
    return payload;
  }

  /** After the commit: waits (at most `ACK_WAIT_MS`) until every listening connection counted has heard the change. */
  async settled(payload: string): Promise<void> {
    const entry = this.pending.get(payload);
    if (!entry) return;
    // Confirmations come through this process's listening connection: none while it is down.
    if (!this.listening || !entry.waiting?.size) return this.finish(payload);
    setTimeout(() => this.finish(payload), ACK_WAIT_MS).unref();
    await entry.done;
  }

  /** A confirmation of an announcement made here, from the listening connection `pid`. */
  private confirmed(payload: string, pid: number): void {
    const entry = this.pending.get(payload);
    if (!entry?.waiting) return;
    entry.waiting.delete(pid);
    if (!entry.waiting.size) this.finish(payload);
  }

  private finish(payload: string): void {
    const entry = this.pending.get(payload);
    if (!entry) return;
    this.pending.delete(payload);
    entry.finish();
  }

  private async listen(): Promise<void> {
    const { url, channel, listener, what } = this.options;
    while (!this.closed) {
      const client = new Client({ connectionString: url, application_name: listener, connectionTimeoutMillis: 5000, query_timeout: HEARTBEAT_TIMEOUT_MS });
      this.client = client;
      let heartbeat: NodeJS.Timeout | undefined;
      // One statement at a time on the connection: confirmations and heartbeats queue here, not in the client.
      let queue: Promise<unknown> = Promise.resolve();
      const run = (sql: string, params?: unknown[]) => {
        const result = queue.then(() => client.query(sql, params));
        queue = result.catch(() => undefined);
        return result;
      };
      let beating = false;
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
          if (n.channel === this.ackChannel) return this.confirmed(payload, n.processId);
          this.options.heard(payload);
          run('SELECT pg_notify($1, $2)', [this.ackChannel, payload]).catch(() => undefined);
        });
        await client.connect();
        await run(`LISTEN ${channel}`);
        await run(`LISTEN ${this.ackChannel}`);
        this.options.reset();
        this.lastBeat = Date.now();
        this.listening = true;
        heartbeat = setInterval(() => {
          if (beating) return;
          beating = true;
          run('SELECT 1')
            .then(
              () => (this.lastBeat = Date.now()),
              () => void client.end().catch(() => undefined),
            )
            .finally(() => (beating = false));
        }, HEARTBEAT_MS);
        await ended;
      } catch (e) {
        if (!this.closed) this.logger.warn(`${what} listener cannot connect: ${(e as Error).message}`);
      } finally {
        clearInterval(heartbeat);
        this.listening = false;
        this.options.reset();
        // Nothing heard here any more: nobody waits on this connection's confirmations.
        for (const payload of [...this.pending.keys()]) this.finish(payload);
        await client.end().catch(() => undefined);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  }
}
