import { createDataSource, migrate, ServiceDatabase } from '@askdata/common';
import { DataSource } from 'typeorm';
import { adminQuery } from '../../../bench/lib/service';

const PG = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A database of its own on the local PostgreSQL for a migration test: created empty by `reset`, dropped by `drop`.
 * `migratedUpTo` migrates a service's schema up to (not including) the named migration, as an older release left it.
 */
export function scratchDatabase(prefix: string) {
  const name = `${prefix}_${process.pid}`;
  const url = PG.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  const admin = (sql: string) => adminQuery(PG, sql);
  const drop = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  return {
    url,
    drop,
    async reset(): Promise<void> {
      await drop();
      await admin(`CREATE DATABASE "${name}"`);
    },
    /** A data source for the service's schema as it is now (all its migrations). */
    current(db: ServiceDatabase): DataSource {
      return createDataSource(db, { url, poolSize: 2, applicationName: 'migration-test' });
    },
    async migratedUpTo(db: ServiceDatabase, migration: string): Promise<DataSource> {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
      const migrations = db.migrations as Function[];
      const before = migrations.findIndex((m) => m.name === migration);
      if (before < 1) throw new Error(`${migration} is not a later migration of ${db.schema}`);
      const old = createDataSource({ ...db, entities: [], migrations: migrations.slice(0, before) }, { url, poolSize: 2, applicationName: 'migration-test' });
      await old.initialize();
      await migrate(old, db.schema);
      return old;
    },
  };
}

/** The names of a service's migrations from `first` on, in order: what migrating a database left before `first` runs. */
export function migrationsFrom(db: ServiceDatabase, first: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  const names = (db.migrations as Function[]).map((m) => m.name);
  if (!names.includes(first)) throw new Error(`${first} is not a migration of ${db.schema}`);
  return names.slice(names.indexOf(first));
}

/**
 * A scratch database made anew before each test of the file (dropped after the last), and `opened`: a data source on
 * a service's schema as it is now, closed after its test.
 */
export function scratchPerTest(prefix: string) {
  const scratch = scratchDatabase(prefix);
  const open: DataSource[] = [];
  beforeEach(() => scratch.reset());
  afterEach(async () => {
    for (const ds of open.splice(0)) if (ds.isInitialized) await ds.destroy();
  });
  afterAll(() => scratch.drop());
  return {
    ...scratch,
    async opened(db: ServiceDatabase): Promise<DataSource> {
      const ds = scratch.current(db);
      open.push(ds);
      await ds.initialize();
      return ds;
    },
  };
}
