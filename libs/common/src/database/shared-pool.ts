import { EventEmitter } from 'node:events';
import * as pg from 'pg';

/**
 * A `pg` module whose Pool is one shared pool: every DataSource built with it uses the same connections.
 * Standalone mode needs this: the embedded PostgreSQL has a single session, and its socket server mixes up the
 * extended-protocol messages of concurrent connections, so all services go through one connection, one query
 * or transaction at a time. Ending a DataSource leaves the shared pool open; its owner ends it.
 */
export function sharedPgDriver(pool: pg.Pool): unknown {
  class SharedPool extends EventEmitter {
    constructor() {
      super();
      pool.on('error', (e) => this.emit('error', e));
    }
    connect(...args: unknown[]): unknown {
      return (pool.connect as (...a: unknown[]) => unknown)(...args);
    }
    query(...args: unknown[]): unknown {
      return (pool.query as (...a: unknown[]) => unknown)(...args);
    }
    end(callback?: (err?: Error) => void): Promise<void> {
      callback?.();
      return Promise.resolve();
    }
    get totalCount(): number {
      return pool.totalCount;
    }
    get idleCount(): number {
      return pool.idleCount;
    }
    get waitingCount(): number {
      return pool.waitingCount;
    }
  }
  return Object.defineProperty(Object.create(pg) as object, 'Pool', { value: SharedPool, enumerable: true });
}
