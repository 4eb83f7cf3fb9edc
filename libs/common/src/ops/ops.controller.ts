import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { registry } from '../observability/metrics';
import { READINESS_CHECKS, ReadinessCheck } from './readiness';

/** Liveness (the process answers), readiness (its dependencies answer), and Prometheus metrics. */
@ApiExcludeController()
@Controller()
export class OpsController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

  @Get('health/live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('health/ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check(
      this.checks.map((c) => async () => {
        const session = this.indicators.check(c.name);
        try {
          await withTimeout(c.check(), 3000);
          return session.up();
        } catch (e) {
          return session.down({ message: (e as Error).message });
        }
      }),
    );
  }

  @Get('metrics')
  @Header('Content-Type', registry.contentType)
  metrics(): Promise<string> {
    return registry.metrics();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}
