import { ArgumentMetadata, DynamicModule, INestApplication, LoggerService, PipeTransform } from '@nestjs/common';
import { MicroserviceOptions } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
import { HealthReport } from '@askdata/contracts';
import { DataSource } from 'typeorm';
import { BusExceptionFilter } from '../bus/bus-exception.filter';
import { BusHandlers, checkScope } from '../bus/bus-handlers';
import { BusOptions, microserviceOptions } from '../bus/bus.options';
import { BusContextInterceptor } from '../observability/bus-context.interceptor';
import { ReadinessCheck } from '../ops/readiness';

/** Every scoped bus request must carry a well-formed scope ({@link checkScope}). */
export class ScopePipe implements PipeTransform {
  transform(value: unknown, _meta: ArgumentMetadata): unknown {
    checkScope(value);
    return value;
  }
}

/**
 * Starts one service: a bus listener (NATS queue group, or the in-process bus in standalone mode) plus, when
 * `ops` is given, an HTTP port for its health and metrics endpoints on that address.
 */
export async function startService(
  module: DynamicModule,
  name: string,
  bus: BusOptions,
  logger: LoggerService | false,
  ops: { port: number; host: string } | null,
): Promise<INestApplication> {
  const app = await NestFactory.create(module, { logger });
  // Registered before the listener, which inherits them: handlers capture their filters when they are bound.
  app.useGlobalFilters(new BusExceptionFilter());
  app.useGlobalPipes(new ScopePipe());
  app.useGlobalInterceptors(new BusContextInterceptor());
  app.connectMicroservice<MicroserviceOptions>(microserviceOptions(bus, name, BusHandlers.of(app)), { inheritAppConfig: true });
  await app.startAllMicroservices();
  if (ops === null) await app.init();
  else await app.listen(ops.port, ops.host);
  return app;
}

export async function databaseHealth(service: string, ds: DataSource, checks: ReadinessCheck[] = []): Promise<HealthReport> {
  const probe = (run: () => Promise<unknown>) =>
    run().then(
      () => ({ status: 'up' as const }),
      (e: Error) => ({ status: 'down' as const, message: e.message }),
    );
  const details: HealthReport['details'] = { database: await probe(() => ds.query('SELECT 1')) };
  for (const c of checks) details[c.name] = await probe(() => c.check());
  return { service, status: Object.values(details).every((d) => d.status === 'up') ? 'ok' : 'error', details };
}
