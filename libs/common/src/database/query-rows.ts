/**
 * Rows of a raw query. TypeORM answers UPDATE and DELETE (even with RETURNING) as `[rows, affected]` and other
 * statements as `rows`; this gives the rows either way.
 */
export async function queryRows<T>(runner: { query(sql: string, params?: unknown[]): Promise<unknown> }, sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await runner.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}
