import { INestApplicationContext, Logger } from '@nestjs/common';
import { Env, JsonLogger, loadConfig } from '@askdata/common';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ProjectsService } from '../../apps/gateway/src/projects/projects.service';
import { APP_NAMES, Infra, loadConfigs, SERVICE_NAMES, startGatewayApp, startServiceApp } from './apps';
import { lockDataDir } from './data-dir-lock';
import { startEmbeddedPostgres } from './embedded-postgres';
import { migrateAll } from './migrations';
import { standaloneSettings, withStandaloneDefaults } from './standalone.config';

/**
 * Standalone mode: the five apps in this process over the in-process bus, the embedded database under
 * DATA_DIR. First start creates project "default" with a key and, unless ADMIN_TOKEN is set, an admin token kept
 * in DATA_DIR; both are printed once.
 */
export async function runStandalone(env: Env): Promise<void> {
  const { DATA_DIR } = loadConfig(standaloneSettings, env);
  const configs = loadConfigs(APP_NAMES, withStandaloneDefaults(env));
  const logger = new JsonLogger('askdata', configs.gateway.LOG_LEVEL);
  // Before any Nest app exists, Nest's own logger prints every level: the migrations' debug lines included.
  Logger.overrideLogger(logger);
  const dataDir = resolve(DATA_DIR);
  mkdirSync(dataDir, { recursive: true });

  // Before the database opens its files: another service using them would corrupt them.
  const lock = lockDataDir(dataDir);
  const pg = await startEmbeddedPostgres(dataDir).catch((e: Error) => {
    lock.release();
    throw e;
  });
  const apps: INestApplicationContext[] = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await pg.stop();
    lock.release();
    process.exit(code);
  };
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));

  try {
    await migrateAll(APP_NAMES, pg.url);
    const infra: Infra = {
      bus: { kind: 'in-process', timeoutMs: configs.gateway.BUS_TIMEOUT_MS },
      databaseUrl: pg.url,
      poolSize: 1,
      pgDriver: pg.driver,
    };
    for (const service of SERVICE_NAMES) apps.push(await startServiceApp(service, configs[service], infra, logger, null));
    const adminToken = configs.gateway.ADMIN_TOKEN ? { value: configs.gateway.ADMIN_TOKEN, created: false, file: '' } : adminTokenIn(dataDir);
    const { app, url, adminUrl } = await startGatewayApp(configs.gateway, adminToken.value, infra, logger);
    apps.push(app);

    const projects = app.get(ProjectsService);
    const lines = [`askdata listening on ${url}/v1 (docs: ${url}/docs, data: ${dataDir})`];
    if (adminUrl !== url) lines.push(`Admin API, metrics and health on ${adminUrl}`);
    if ((await projects.count()) === 0) {
      const project = await projects.create({ name: 'default', tenancy: 'single' }, FIRST_START);
      const key = await projects.createKey(project.id, { name: 'default' }, FIRST_START);
      lines.push(`Created project "default" (${project.id}).`, `API key: ${key.key}`, '(The key is shown only now; it is stored hashed.)');
    }
    if (adminToken.created) {
      lines.push(`Admin token: ${adminToken.value}`, `(Kept in ${adminToken.file}; set ADMIN_TOKEN to use your own.)`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  } catch (e) {
    logger.error((e as Error).message);
    await stop(1);
  }
}

/** The audit log's name for what the first start creates. */
const FIRST_START = { actor: 'first-start', address: 'local' };

function adminTokenIn(dataDir: string): { value: string; created: boolean; file: string } {
  const file = resolve(dataDir, 'admin-token');
  if (existsSync(file)) return { value: readFileSync(file, 'utf8').trim(), created: false, file };
  const value = 'adm_' + randomBytes(32).toString('base64url');
  writeFileSync(file, value + '\n', { mode: 0o600 });
  return { value, created: true, file };
}
