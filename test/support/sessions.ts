import { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';

/**
 * A data source whose sessions send their statements to `query`; a VACUUM of a table named in `skipped` is warned, as
 * PostgreSQL warns a session, that SKIP_LOCKED skipped it (once a name, removed from `skipped`).
 */
export function sessionsOf(query: (sql: string) => Promise<unknown>, skipped: string[] = []): DataSource {
  return {
    createQueryRunner: () => {
      const session = new EventEmitter();
      return {
        connect: async () => session,
        query: (sql: string) => {
          const i = skipped.findIndex((table) => sql.startsWith('VACUUM') && sql.endsWith(`.${table}`));
          if (i >= 0) session.emit('notice', { code: '55P03', message: `skipping vacuum of "${skipped.splice(i, 1)[0]}" --- lock not available` });
          return query(sql);
        },
        release: async () => undefined,
      };
    },
  } as unknown as DataSource;
}

/** Lets work that was started take a session and send its first statement. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
