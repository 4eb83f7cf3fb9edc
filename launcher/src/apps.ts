import { DynamicModule, INestApplicationContext, LoggerService } from '@nestjs/common';
import type { Server } from 'node:http';
import { BusOptions, ConfigOf, DatabaseOptions, Env, loadConfig, Schema, ServiceRuntime, startService } from '@askdata/common';
import { catalogSettings } from '../../apps/catalog/src/catalog.config';
import { CatalogModule } from '../../apps/catalog/src/catalog.module';
import { conversationSettingProblems, conversationSettings } from '../../apps/conversation/src/conversation.config';
import { ConversationModule } from '../../apps/conversation/src/conversation.module';
import { createGateway } from '../../apps/gateway/src/gateway.app';
import { AdminPort } from '../../apps/gateway/src/http/admin-port';
import { APP_NAMES, AppName } from './databases';
import { gatewaySettings } from '../../apps/gateway/src/gateway.config';
import { ingestionSettings } from '../../apps/ingestion/src/ingestion.config';
import { IngestionModule } from '../../apps/ingestion/src/ingestion.module';
import { retrievalSettings } from '../../apps/retrieval/src/retrieval.config';
import { RetrievalModule } from '../../apps/retrieval/src/retrieval.module';

/**
 * The launcher is the only code that knows all five apps; apps never import each other.
 */
export { APP_NAMES };
export type { AppName };
export const SERVICE_NAMES = ['ingestion', 'catalog', 'retrieval', 'conversation'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const SETTINGS = {
  gateway: gatewaySettings,
  ingestion: ingestionSettings,
  catalog: catalogSettings,
  retrieval: retrievalSettings,
  conversation: conversationSettings,
} satisfies Record<AppName, Schema>;

export type Configs = { [A in AppName]: ConfigOf<(typeof SETTINGS)[A]> };

/** Settings checked against each other once each is valid: a message per problem. */
const CROSS_CHECKS: { [A in AppName]?: (config: Configs[A]) => string[] } = {
  conversation: conversationSettingProblems,
};

/** Validates every app's settings (all problems at once, each naming its setting). */
export function loadConfigs<A extends AppName>(apps: readonly A[], env: Env): Pick<Configs, A> {
  const out = {} as Pick<Configs, A>;
  const problems: string[] = [];
  for (const app of apps) {
    try {
      const config = loadConfig(SETTINGS[app], env);
      (out as Record<string, unknown>)[app] = config;
      problems.push(...((CROSS_CHECKS[app] as ((c: typeof config) => string[]) | undefined)?.(config) ?? []));
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  if (problems.length) throw new Error([...new Set(problems.join('\n').split('\n'))].join('\n'));
  return out;
}

export interface Infra {
  bus: BusOptions;
  databaseUrl: string;
  poolSize: number;
  /** Distributed: connections of each pool kept for reads (DATABASE_READ_CONNECTIONS). */
  reservedForReads?: number;
  /** Distributed: PostgreSQL's statement_timeout for the services' connections (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs?: number;
  /** Standalone: the shared single-connection `pg` driver of the embedded database. */
  pgDriver?: unknown;
}

function database(app: AppName, infra: Infra): DatabaseOptions {
  return {
    url: infra.databaseUrl,
    poolSize: infra.poolSize,
    applicationName: `askdata-${app}`,
    driver: infra.pgDriver,
    statementTimeoutMs: infra.statementTimeoutMs,
    reservedForReads: infra.reservedForReads,
  };
}

const MODULES: { [S in ServiceName]: (runtime: ServiceRuntime<Configs[S]>) => DynamicModule } = {
  ingestion: (runtime) => IngestionModule.forRoot(runtime),
  catalog: (runtime) => CatalogModule.forRoot(runtime),
  retrieval: (runtime) => RetrievalModule.forRoot(runtime),
  conversation: (runtime) => ConversationModule.forRoot(runtime),
};

/** Starts a bus service; `ops` null serves no HTTP (standalone: the gateway's /metrics covers the process). */
export function startServiceApp<S extends ServiceName>(
  app: S,
  config: Configs[S],
  infra: Infra,
  logger: LoggerService | false,
  ops: { port: number; host: string } | null,
): Promise<INestApplicationContext> {
  const module = MODULES[app]({ bus: infra.bus, database: database(app, infra), config });
  return startService(module, app, infra.bus, logger, ops);
}

export async function startGatewayApp(
  config: Configs['gateway'],
  adminToken: string,
  infra: Infra,
  logger: LoggerService | false,
): Promise<{ app: INestApplicationContext; url: string; adminUrl: string }> {
  const app = await createGateway({ bus: infra.bus, database: database('gateway', infra), config, adminToken }, logger);
  await app.listen(config.PORT, config.HOST);
  const address = (app.getHttpServer() as Server).address() as { port: number } | string;
  const port = typeof address === 'string' ? config.PORT : address.port;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${port}`;
  // Distributed deployments keep /admin, /metrics and /health off the public port unless told otherwise.
  const wanted = config.ADMIN_PORT ?? (infra.bus.kind === 'nats' ? DISTRIBUTED_ADMIN_PORT : null);
  if (wanted === null || (wanted !== 0 && wanted === port)) return { app, url, adminUrl: url };
  const adminPort = await app.get(AdminPort).listen(app, wanted, config.HOST);
  return { app, url, adminUrl: `http://${host}:${adminPort}` };
}

const DISTRIBUTED_ADMIN_PORT = 9464;
