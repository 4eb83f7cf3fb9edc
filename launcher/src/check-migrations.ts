import 'reflect-metadata';
import { createDataSource, loadConfig, pendingSchemaChanges, processEnv, setting } from '@askdata/common';
import { Client } from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_NAMES, DATABASES } from './databases';
import { startEmbeddedPostgres } from './embedded-postgres';
import { migrateAll } from './migrations';

/**
 * Migration drift check: migrates a fresh database, then asks TypeORM what it would change to match the
 * entities. Any statement means entities and migrations disagree, and the check fails listing them.
 * `--postgres` uses the local PostgreSQL (PG_URL, a scratch database whose name contains "test");
 * otherwise the embedded PostgreSQL in a temporary directory.
 */
const toolSettings = {
  PG_URL: setting.requiredString('PostgreSQL server for scratch databases.', { default: 'postgres://postgres@127.0.0.1:5432/postgres' }),
};

async function main(): Promise<number> {
  const usePostgres = process.argv.includes('--postgres');
  let url: string;
  let cleanup: () => Promise<void>;
  if (usePostgres) {
    const { PG_URL: base } = loadConfig(toolSettings, processEnv());
    const name = `askdata_drift_test_${process.pid}`;
    const admin = new Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    url = base.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
    cleanup = async () => {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'askdata-drift-'));
    const pg = await startEmbeddedPostgres(dir);
    url = pg.url;
    cleanup = async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  let drift = 0;
  try {
    await migrateAll(APP_NAMES, url);
    for (const app of APP_NAMES) {
      const ds = createDataSource(DATABASES[app], { url, poolSize: 2, applicationName: 'drift-check' });
      await ds.initialize();
      const pending = await pendingSchemaChanges(ds);
      await ds.destroy();
      if (pending.length) {
        drift += pending.length;
        console.error(`${app}: entities and migrations disagree; TypeORM would run:\n  ${pending.join('\n  ')}`);
      } else console.log(`${app}: entities and migrations agree`);
    }
  } finally {
    await cleanup();
  }
  return drift ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(`check-migrations: ${e.message}`);
    process.exit(1);
  },
);
