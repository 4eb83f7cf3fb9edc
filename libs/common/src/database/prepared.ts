import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

interface NamedQueryPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const names = new Map<string, string>();

/**
 * Rows of a statement run as a named prepared statement, so that each connection parses and plans it once instead
 * of on every call. For hot queries with a few fixed texts (the name is derived from the text; values vary).
 */
export async function preparedRows<T>(ds: DataSource, text: string, values: unknown[]): Promise<T[]> {
  let name = names.get(text);
  if (name === undefined) {
    name = `askdata_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  const pool = (ds.driver as unknown as { master: NamedQueryPool }).master;
  return (await pool.query({ name, text, values })).rows as T[];
}
