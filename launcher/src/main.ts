import 'reflect-metadata';
import { INestApplicationContext, Logger } from '@nestjs/common';
import { commonSettings, installLeanAsyncBind, JsonLogger, loadConfig, processEnv } from '@askdata/common';
import { APP_NAMES, AppName, Infra, loadConfigs, ServiceName, startGatewayApp, startServiceApp } from './apps';
import { runStandalone } from './standalone';

/**
 * `main.js`            standalone: all five apps in one process, embedded PostgreSQL, in-process bus.
 * `main.js <app>`      one app of the distributed system (NATS, PostgreSQL), e.g. `main.js gateway`.
 */
async function main(): Promise<void> {
  installLeanAsyncBind();
  const arg = process.argv[2];
  if (arg === undefined || arg === 'standalone') return runStandalone(processEnv());
  if (!(APP_NAMES as readonly string[]).includes(arg)) {
    throw new Error(`Unknown app "${arg}". Use one of: ${APP_NAMES.join(', ')} (or no argument for standalone mode).`);
  }
  await runDistributed(arg as AppName);
}

async function runDistributed(name: AppName): Promise<void> {
  const env = processEnv();
  const common = loadConfig(commonSettings, env);
  const logger = new JsonLogger(name, common.LOG_LEVEL);
  Logger.overrideLogger(logger);
  const infra: Infra = {
    bus: { kind: 'nats', url: common.NATS_URL ?? 'nats://127.0.0.1:4222', timeoutMs: common.BUS_TIMEOUT_MS, subjectPrefix: common.NATS_SUBJECT_PREFIX },
    databaseUrl: common.DATABASE_URL ?? '',
    poolSize: common.DATABASE_POOL_SIZE,
    reservedForReads: common.DATABASE_READ_CONNECTIONS,
    statementTimeoutMs: common.DATABASE_STATEMENT_TIMEOUT_MS,
  };
  let app: INestApplicationContext;
  if (name === 'gateway') {
    const { gateway } = loadConfigs(['gateway'], env);
    if (!gateway.ADMIN_TOKEN) throw new Error('Missing setting ADMIN_TOKEN: the gateway needs it in distributed mode.');
    const started = await startGatewayApp(gateway, gateway.ADMIN_TOKEN, infra, logger);
    app = started.app;
    logger.log(`gateway listening on ${started.url}/v1` + (started.adminUrl === started.url ? '' : `; /admin, /metrics and /health on ${started.adminUrl}`));
  } else {
    const service: ServiceName = name;
    const configs = loadConfigs([service], env);
    app = await startServiceApp(service, configs[service], infra, logger, { port: configs[service].HEALTH_PORT, host: configs[service].HOST });
    logger.log(`${name} ready`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: shutting down`);
    void app.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
