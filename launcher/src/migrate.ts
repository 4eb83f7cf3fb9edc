import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { commonSettings, JsonLogger, loadConfig, processEnv } from '@askdata/common';
import { Client } from 'pg';
import { APP_NAMES, AppName } from './databases';
import { migrateAll } from './migrations';

/**
 * `migrate.js [--create-database] [app ...]`: applies pending migrations of the given apps (all by default) to
 * DATABASE_URL, creating that database first when asked.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const createDatabase = args.includes('--create-database');
  const requested = args.filter((a) => !a.startsWith('--'));
  const unknown = requested.filter((a) => !(APP_NAMES as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`Unknown app(s): ${unknown.join(', ')}. Use: ${APP_NAMES.join(', ')}.`);
  const apps = (requested.length ? requested : APP_NAMES) as AppName[];
  const { DATABASE_URL, LOG_LEVEL } = loadConfig(commonSettings, processEnv());
  Logger.overrideLogger(new JsonLogger('migrate', LOG_LEVEL));
  if (!DATABASE_URL) throw new Error('Missing setting DATABASE_URL.');
  if (createDatabase) await ensureDatabase(DATABASE_URL);
  const applied = await migrateAll(apps, DATABASE_URL);
  for (const app of apps) {
    const names = applied[app];
    console.log(`${app}: ${names.length ? `applied ${names.join(', ')}` : 'up to date'}`);
  }
}

/** Creates the database named in the URL when it does not exist yet (connecting to the `postgres` database). */
async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) return;
  const admin = new Client({ connectionString: url.replace(/\/[^/?]*(\?|$)/, '/postgres$1') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      console.log(`created database ${name}`);
    }
  } finally {
    await admin.end();
  }
}

main().catch((e: Error) => {
  console.error(`migrate: ${e.message}`);
  process.exit(1);
});
