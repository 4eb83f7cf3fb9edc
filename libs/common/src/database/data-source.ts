import { types } from 'pg';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import { priorityPgDriver } from './priority-pool';
import { TypeOrmLogger } from './typeorm-logger';

// count(*) and bigint ids come back as numbers; every value we count stays far below 2^53.
types.setTypeParser(types.builtins.INT8, (v) => Number(v));
types.setTypeParser(types.builtins.NUMERIC, (v) => Number(v));

export interface ServiceDatabase {
  /** Schema owned by the service; its migrations table lives there too. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
}

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  applicationName: string;
  /** A `pg` module to use instead of the default one (standalone mode: see {@link sharedPgDriver}). */
  driver?: unknown;
  /**
   * Connections of the pool that bulk work (see `inBackground`) never takes, so that reads always find one; default
   * 2. Ignored with `driver`, which brings its own pool.
   */
  reservedForReads?: number;
  /** PostgreSQL's statement_timeout for every connection of the pool; unset or 0: none (migrations). */
  statementTimeoutMs?: number;
}

/** One DataSource per service, used by the app and by the migration command alike. */
export function createDataSource(db: ServiceDatabase, options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: db.schema,
    entities: db.entities,
    migrations: db.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    logger: new TypeOrmLogger(),
    applicationName: options.applicationName,
    driver: options.driver ?? priorityPgDriver(options.reservedForReads ?? 2),
    extra: {
      max: options.poolSize,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30000,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      // No JIT compilation: PostgreSQL compiles any statement whose estimated cost passes `jit_above_cost` (100,000),
      // which an index batch's removal of its items' old chunks reaches from a few hundred items up, and spent 60 to
      // 120 ms compiling that one, which runs in one, with the project's index lock held.
      options: '-c jit=off',
    },
  });
}

/**
 * Applies the service's pending migrations under an advisory lock, so replicas starting together are safe.
 * Holds one connection for the lock while TypeORM migrates on another: the DataSource needs a pool of two.
 */
export async function migrate(ds: DataSource, schema: string): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`askdata-migrate-${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const done = await ds.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`askdata-migrate-${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/** SQL that would bring the database in line with the entities; empty when migrations and entities agree. */
export async function pendingSchemaChanges(ds: DataSource): Promise<string[]> {
  const log = await ds.driver.createSchemaBuilder().log();
  return log.upQueries.map((q) => q.query);
}
