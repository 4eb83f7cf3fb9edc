import { ArgumentMetadata, DynamicModule, INestMicroservice, LoggerService, PipeTransform } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ErrorCode, HealthReport, isUuid, TENANCIES } from '@askdata/contracts';
import { DataSource } from 'typeorm';
import { BusExceptionFilter } from '../bus/bus-exception.filter';
import { BusOptions, microserviceOptions } from '../bus/bus.options';
import { ServiceError } from '../bus/service-error';

/**
 * Every scoped bus request must carry a well-formed scope: a service never runs a query without the project
 * (and tenancy) the gateway resolved from the API key.
 */
export class ScopePipe implements PipeTransform {
  transform(value: unknown, _meta: ArgumentMetadata): unknown {
    if (typeof value === 'object' && value !== null && 'scope' in value) {
      const scope = (value as { scope: unknown }).scope as { projectId?: unknown; tenancy?: unknown } | null;
      if (!scope || !isUuid(scope.projectId) || !(TENANCIES as readonly unknown[]).includes(scope.tenancy)) {
        throw new ServiceError(ErrorCode.BadRequest, 'Malformed request scope.');
      }
    }
    return value;
  }
}

/** Starts one service as a bus listener (NATS queue group, or the in-process bus in standalone mode). */
export async function startService(
  module: DynamicModule,
  name: string,
  bus: BusOptions,
  logger: LoggerService | false,
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(module, { ...microserviceOptions(bus, name), logger });
  app.useGlobalFilters(new BusExceptionFilter());
  app.useGlobalPipes(new ScopePipe());
  await app.listen();
  return app;
}

export async function databaseHealth(service: string, ds: DataSource): Promise<HealthReport> {
  const database = await ds.query('SELECT 1').then(
    () => ({ status: 'up' as const }),
    (e: Error) => ({ status: 'down' as const, message: e.message }),
  );
  return { service, status: database.status === 'up' ? 'ok' : 'error', details: { database } };
}
