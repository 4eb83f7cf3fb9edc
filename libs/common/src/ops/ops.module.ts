import { DynamicModule, Injectable, Module, Provider, Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { BusClient } from '../bus/bus-client';
import { OpsController } from './ops.controller';
import { READINESS_CHECKS, ReadinessCheck } from './readiness';

@Injectable()
export class DatabaseReadiness implements ReadinessCheck {
  readonly name = 'database';
  constructor(private readonly ds: DataSource) {}
  async check(): Promise<void> {
    await this.ds.query('SELECT 1');
  }
}

@Injectable()
export class BusReadiness implements ReadinessCheck {
  readonly name = 'bus';
  constructor(private readonly bus: BusClient) {}
  async check(): Promise<void> {
    if (!(await this.bus.isConnected())) throw new Error('not connected to the bus');
  }
}

/**
 * Health and metrics endpoints of an app: `/health/live`, `/health/ready` (database, bus, and the app's own
 * external dependencies), `/metrics`.
 */
@Module({})
export class OpsModule {
  static forApp(extraChecks: Array<Type<ReadinessCheck>> = []): DynamicModule {
    const checks = [DatabaseReadiness, BusReadiness, ...extraChecks];
    const collect: Provider = {
      provide: READINESS_CHECKS,
      useFactory: (...all: ReadinessCheck[]) => all,
      inject: checks,
    };
    return { module: OpsModule, imports: [TerminusModule.forRoot({ logger: false })], controllers: [OpsController], providers: [...checks, collect] };
  }
}
