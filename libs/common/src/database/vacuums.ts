import type { DataSource } from 'typeorm';

/**
 * The statement that finds which of `tables` a `VACUUM (SKIP_LOCKED)` begun `$1` milliseconds ago skipped: those with
 * no vacuum, its own or autovacuum's, finished since (a second to spare; the database's clock). SKIP_LOCKED skips a
 * table without an error while another session vacuums or analyses it (autovacuum, another replica), and PostgreSQL
 * records a vacuum as it ends, so a table vacuumed meanwhile is not reported.
 */
export function vacuumSkippedStatement(tables: readonly string[]): string {
  return `SELECT relname AS "table" FROM pg_stat_user_tables
  WHERE relid = ANY(ARRAY[${tables.map((t) => `'${t}'::regclass`).join(', ')}])
    AND coalesce(greatest(last_vacuum, last_autovacuum), '-infinity') < statement_timestamp() - ($1::int + 1000) * interval '1 millisecond'`;
}

/** The tables of `statement` (from {@link vacuumSkippedStatement}) a vacuum begun at `started` (epoch ms) skipped. */
export async function vacuumSkipped(ds: Pick<DataSource, 'query'>, statement: string, started: number): Promise<string[]> {
  const rows = await ds.query<Array<{ table: string }>>(statement, [Date.now() - started]);
  return rows.map((r) => r.table);
}
