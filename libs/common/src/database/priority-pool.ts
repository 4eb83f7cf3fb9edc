import { AsyncLocalStorage } from 'node:async_hooks';
import * as pg from 'pg';
import { metrics } from '../observability/metrics';

/**
 * Bulk work (ingestion's batches: claiming and storing upserts, catalog's applies, the index's writes) runs "in the
 * background": its database connections come from the same pool as reads', but a read never queues behind it.
 * Whoever waits for a connection is served reads first, and bulk work holds at most `max - reserved` connections at
 * once, so `reserved` of them are always left to reads (standalone's single connection: reads first when it frees).
 */
const lane = new AsyncLocalStorage<'background'>();

/** Runs `fn` (and everything it starts) as bulk work. */
export function inBackground<T>(fn: () => T): T {
  return lane.run('background', fn);
}

/** Runs `fn` as work a client waits for, even when called from bulk work. */
export function inForeground<T>(fn: () => T): T {
  return lane.exit(fn);
}

export function isBackground(): boolean {
  return lane.getStore() === 'background';
}

/**
 * Who may take a connection next: reads first; bulk work only below its share, and never starved: once waiting bulk
 * work has been held back by reads for `patienceMs` (reads served ahead of it, or holding the connections it could
 * take), it goes ahead of the reads waiting then. Time spent waiting behind other bulk work does not count, so a
 * backlog of bulk work does not put itself ahead of reads.
 */
export class ConnectionGate {
  private inUse = 0;
  private backgroundInUse = 0;
  private readonly reads: Array<() => void> = [];
  private readonly writes: Array<{ grant: () => void }> = [];
  /** Since when waiting bulk work has been held back by reads (see pump). */
  private heldBackSince: number | null = null;

  constructor(
    readonly max: number,
    readonly backgroundMax: number,
    readonly patienceMs = 100,
  ) {}

  /**
   * Resolves with the function that gives the connection back (call it once). With `timeoutMs`, a caller still
   * waiting then is taken out of the line and rejected as `pg`'s pool rejects one that waited too long.
   */
  acquire(background: boolean, timeoutMs = 0): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const grant = () => {
        clearTimeout(timer);
        this.inUse++;
        if (background) this.backgroundInUse++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.inUse--;
          if (background) this.backgroundInUse--;
          this.pump();
        });
      };
      if (background) this.writes.push({ grant });
      else this.reads.push(grant);
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          if (background)
            this.writes.splice(
              this.writes.findIndex((w) => w.grant === grant),
              1,
            );
          else this.reads.splice(this.reads.indexOf(grant), 1);
          // Forgets how long bulk work was held back when none is left waiting.
          this.pump();
          reject(new Error('timeout exceeded when trying to connect'));
        }, timeoutMs);
      }
      this.pump();
    });
  }

  /** Waiting now: reads and bulk work. */
  get waiting(): { reads: number; background: number } {
    return { reads: this.reads.length, background: this.writes.length };
  }

  private pump(): void {
    for (;;) {
      // Bulk work below its share that still waits is held back by reads (served first, or holding connections);
      // once that has lasted `patienceMs`, it goes next. Waiting behind other bulk work does not count.
      const writeMayGo = this.writes.length > 0 && this.backgroundInUse < this.backgroundMax;
      this.heldBackSince = writeMayGo ? (this.heldBackSince ?? performance.now()) : null;
      if (this.inUse >= this.max) return;
      if (writeMayGo && (!this.reads.length || performance.now() - this.heldBackSince! >= this.patienceMs)) {
        this.heldBackSince = null;
        this.writes.shift()!.grant();
      } else if (this.reads.length) this.reads.shift()!();
      else return;
    }
  }
}

/** Connections bulk work may hold in a pool of `max`, leaving `reserved` to reads (at least one for bulk work). */
export function backgroundShare(max: number, reserved: number): number {
  return Math.max(1, max - reserved);
}

type Done = (err?: Error | boolean) => void;
type ConnectCallback = (err: Error | undefined, client?: pg.PoolClient, done?: Done) => void;

/**
 * A `pg` Pool whose connections go through a {@link ConnectionGate}: `reserved` (default 2) of its `max`
 * connections are kept for reads, and a waiting read is served before waiting bulk work. Pool.query goes through
 * connect, so it is gated too.
 */
export class PriorityPool extends pg.Pool {
  readonly gate: ConnectionGate;
  /** `connectionTimeoutMillis`: a wait in the gate counts against it as a wait in the pool does. */
  private readonly waitMs: number;

  constructor(config: pg.PoolConfig & { reservedForReads?: number }) {
    const { reservedForReads, ...rest } = config;
    super(rest);
    const max = rest.max ?? 10;
    this.gate = new ConnectionGate(max, backgroundShare(max, reservedForReads ?? 2));
    this.waitMs = rest.connectionTimeoutMillis ?? 0;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const background = isBackground();
    const lane = background ? 'background' : 'read';
    const asked = performance.now();
    const connected = this.gate.acquire(background, this.waitMs).then(async (giveBack) => {
      let client: pg.PoolClient;
      try {
        client = await super.connect();
      } catch (e) {
        giveBack();
        throw e;
      }
      const got = performance.now();
      metrics.dbConnectionWait.observe({ lane }, (got - asked) / 1000);
      const release = client.release.bind(client);
      client.release = (err?: Error | boolean) => {
        client.release = release;
        metrics.dbConnectionHeld.observe({ lane }, (performance.now() - got) / 1000);
        giveBack();
        return release(err);
      };
      return client;
    });
    if (!callback) return connected;
    connected.then(
      (client) => callback(undefined, client, (err) => client.release(err)),
      (e: Error) => callback(e),
    );
  }
}

/** A `pg` module whose Pool is a {@link PriorityPool} (TypeORM's `driver` option). */
export function priorityPgDriver(reservedForReads: number): unknown {
  class Pool extends PriorityPool {
    constructor(config: pg.PoolConfig) {
      super({ ...config, reservedForReads });
    }
  }
  return Object.defineProperty(Object.create(pg) as object, 'Pool', { value: Pool, enumerable: true });
}
