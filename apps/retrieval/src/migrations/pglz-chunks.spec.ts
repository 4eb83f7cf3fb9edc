import { randomUUID } from 'node:crypto';
import { sqlIndex } from '../../../../test/integration/support/retrieval-index';
import { embeddedDatabaseForTests } from '../../../../test/support/embedded-database';
import { retrievalDatabase } from '../retrieval.database';
import { hasLz4 } from './1796500000000-compressed-chunks';

/** The embedded database has no LZ4 (rows written before packing are compressed with pglz); packed rows are found as before. */
describe('chunk rows in the embedded database', () => {
  const database = embeddedDatabaseForTests(retrievalDatabase);

  it('stores their text and forward index packed, not compressed again, a row smaller than its text alone, and finds them the same', async () => {
    const ds = database();
    expect(await hasLz4(ds)).toBe(false);
    const { index } = sqlIndex(ds);
    const project = randomUUID();
    // A chunk of about 3 KB as stored: its forward index and its text.
    const text = Array.from({ length: 150 }, (_, i) => `word${i % 97}x${i}`).join(' ');
    await index.replace({ projectId: project, tenancy: 'single' }, [
      { itemId: randomUUID(), clientItemId: 'cedar-item', collection: 'default', tenant: null, url: null, metadata: {}, title: '', chunks: [`${text} cedar`] },
    ]);
    const [row] = await ds.query<Array<{ forward: string | null; packed: string | null; terms: unknown; text: unknown; size: number }>>(
      `SELECT pg_column_compression(forward) AS forward, pg_column_compression(packed) AS packed, terms, text, pg_column_size(c.*) AS size
       FROM retrieval.chunks c WHERE project_id = $1`,
      [project],
    );
    expect(row).toEqual({ forward: null, packed: null, terms: null, text: null, size: expect.any(Number) });
    expect(row.size).toBeLessThan(Buffer.byteLength(`${text} cedar`));
    const hits = await index.search({ scope: { projectId: project, tenancy: 'single' }, text: 'cedar', tenant: null, collections: null, filters: [], limit: 5 });
    expect(hits.map((h) => h.item_id)).toEqual(['cedar-item']);
  });
});
