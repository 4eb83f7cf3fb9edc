import { createDataSource, migrate } from '@askdata/common';
import { AppName, DATABASES } from './databases';

/** Applies each app's migrations to its own schema; returns the names of those applied now. */
export async function migrateAll(apps: readonly AppName[], url: string): Promise<Record<string, string[]>> {
  const applied: Record<string, string[]> = {};
  for (const app of apps) {
    const db = DATABASES[app];
    const ds = createDataSource(db, { url, poolSize: 2, applicationName: `askdata-migrate-${app}` });
    await ds.initialize();
    try {
      applied[app] = await migrate(ds, db.schema);
    } finally {
      await ds.destroy();
    }
  }
  return applied;
}
