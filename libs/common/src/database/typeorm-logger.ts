import { Logger as NestLogger } from '@nestjs/common';
import type { Logger } from 'typeorm';

const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 300);

/**
 * TypeORM's messages through the service's own (JSON) log. Query parameters are left out: they carry clients'
 * records and key hashes.
 */
export class TypeOrmLogger implements Logger {
  private readonly logger = new NestLogger('TypeORM');

  logQuery(): void {
    /* queries are not logged */
  }

  logQueryError(error: string | Error, query: string, _parameters?: unknown[]): void {
    this.logger.warn(`query failed (${typeof error === 'string' ? error : error.message}): ${oneLine(query)}`);
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${oneLine(query)}`);
  }

  logSchemaBuild(message: string): void {
    this.logger.debug(message);
  }

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
