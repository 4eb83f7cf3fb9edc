import 'reflect-metadata';
import { commonSettings, loadConfig, processEnv } from '@askdata/common';
import { APP_NAMES, AppName } from './apps';
import { migrateAll } from './migrations';

/** `migrate.js [app ...]`: applies pending migrations of the given apps (all by default) to DATABASE_URL. */
async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((a) => !(APP_NAMES as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`Unknown app(s): ${unknown.join(', ')}. Use: ${APP_NAMES.join(', ')}.`);
  const apps = (requested.length ? requested : APP_NAMES) as AppName[];
  const { DATABASE_URL } = loadConfig(commonSettings, processEnv());
  if (!DATABASE_URL) throw new Error('Missing setting DATABASE_URL.');
  const applied = await migrateAll(apps, DATABASE_URL);
  for (const app of apps) {
    const names = applied[app];
    console.log(`${app}: ${names.length ? `applied ${names.join(', ')}` : 'up to date'}`);
  }
}

main().catch((e: Error) => {
  console.error(`migrate: ${e.message}`);
  process.exit(1);
});
