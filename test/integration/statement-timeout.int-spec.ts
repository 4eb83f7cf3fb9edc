import { createDataSource, isDatabaseUnavailable } from '@askdata/common';
import { DataSource } from 'typeorm';
import { scratchDatabase } from './support/scratch-database';

/**
 * DATABASE_STATEMENT_TIMEOUT_MS reaches PostgreSQL: a service's statement that runs past it is cancelled by the
 * server (so it stops holding a connection and its locks), the error is one the services answer 503 for, and
 * the connection serves the next statement. A data source without it (migrations) is not bounded. Neither compiles
 * statements just in time.
 */
describe('statement timeout', () => {
  const db = scratchDatabase('askdata_test_statement_timeout');
  const schema = { schema: 'public', entities: [], migrations: [] };
  let bounded: DataSource;
  let unbounded: DataSource;

  beforeAll(async () => {
    await db.reset();
    bounded = await createDataSource(schema, { url: db.url, poolSize: 1, applicationName: 'statement-timeout-test', statementTimeoutMs: 200 }).initialize();
    unbounded = await createDataSource(schema, { url: db.url, poolSize: 1, applicationName: 'statement-timeout-test' }).initialize();
  });

  afterAll(async () => {
    await bounded?.destroy();
    await unbounded?.destroy();
    await db.drop();
  });

  it('cancels a statement that runs past the limit, as unavailable, and keeps the connection usable', async () => {
    const err = await bounded.query('SELECT pg_sleep(5)').then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as { driverError?: { code?: string } }).driverError?.code).toBe('57014');
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(await bounded.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('compiles no statement just in time, however costly its estimate', async () => {
    // PostgreSQL's default (jit on, above a cost of 100,000) would compile this one where the server has LLVM.
    const costly = 'EXPLAIN (FORMAT JSON) SELECT sum(g) FROM generate_series(1, 10000000) g';
    for (const ds of [bounded, unbounded]) {
      expect(await ds.query("SELECT current_setting('jit') AS jit")).toEqual([{ jit: 'off' }]);
      const [{ 'QUERY PLAN': plan }] = await ds.query<Array<{ 'QUERY PLAN': Array<Record<string, unknown>> }>>(costly);
      expect(plan[0].JIT).toBeUndefined();
    }
  });

  it('leaves a data source without the setting unbounded', async () => {
    expect(await unbounded.query("SELECT current_setting('statement_timeout') AS t")).toEqual([{ t: '0' }]);
    expect(await bounded.query("SELECT current_setting('statement_timeout') AS t")).toEqual([{ t: '200ms' }]);
  });
});
