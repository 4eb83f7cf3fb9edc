import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthReport, Subjects } from '@askdata/contracts';
import { BusClient, databaseHealth } from '@askdata/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';

const SERVICES = [Subjects.ingestion.health, Subjects.catalog.health, Subjects.retrieval.health, Subjects.conversation.health] as const;

/**
 * The whole system as seen from the gateway: its own database and every service over the bus. (The gateway's own
 * liveness and readiness are /health/live and /health/ready.)
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly bus: BusClient,
    private readonly ds: DataSource,
  ) {}

  @Get()
  async system(@Res({ passthrough: true }) res: Response): Promise<{ status: 'ok' | 'error'; services: HealthReport[] }> {
    const reports = await Promise.all([
      databaseHealth('gateway', this.ds),
      ...SERVICES.map((subject) =>
        this.bus.request(subject, {}, { timeoutMs: 3000 }).catch((e: Error): HealthReport => ({
          service: subject.split('.')[0],
          status: 'error',
          details: { bus: { status: 'down', message: e.message } },
        })),
      ),
    ]);
    const status = reports.every((r) => r.status === 'ok') ? 'ok' : 'error';
    res.status(status === 'ok' ? 200 : 503);
    return { status, services: reports };
  }
}
