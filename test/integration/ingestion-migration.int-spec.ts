import { randomUUID } from 'node:crypto';
import { migrate } from '@askdata/common';
import { DataSource } from 'typeorm';
import { ingestionDatabase } from '../../apps/ingestion/src/ingestion.database';
import { scratchDatabase } from './support/scratch-database';

/**
 * Batches accepted before they were kept as JSON text (stored as jsonb) are still there, whole, after the migration:
 * a worker claiming one afterwards reads the same items it would have read before.
 */
jest.setTimeout(60000);

describe('migrating the stored batches to JSON text', () => {
  const scratch = scratchDatabase('askdata_ingestion_migration_test');
  let ds: DataSource | undefined;
  beforeAll(() => scratch.reset());
  afterAll(async () => {
    await ds?.destroy();
    await scratch.drop();
  });

  it('keeps every queued batch as the JSON of the same payload', async () => {
    const old = await scratch.migratedUpTo(ingestionDatabase, 'BatchPayloadText1795600000000');
    const payload = {
      tenancy: 'multi',
      collection: { slug: 'faq', name: 'FAQ' },
      items: [
        { id: 'a-1', tenant: 7, data: { title: 'Crème brûlée — “quoted”', price: 12.5, tags: ['x', 'y'], nested: { ok: true, none: null } } },
        { id: 'a-2', tenant: 7, data: { text: 'line one\nline two\ttabbed \\ backslash' }, metadata: { year: 2024 } },
      ],
    };
    const id = randomUUID();
    await old.query(
      `INSERT INTO ingestion.upserts (id, project_id, collection, status, items_count, attempts, available_at, created_at)
       VALUES ($1, $2, 'faq', 'queued', 2, 0, now(), now())`,
      [id, randomUUID()],
    );
    await old.query(`INSERT INTO ingestion.upsert_batches (upsert_id, payload) VALUES ($1, $2::jsonb)`, [id, JSON.stringify(payload)]);
    await old.destroy();

    ds = scratch.current(ingestionDatabase);
    await ds.initialize();
    expect(await migrate(ds, 'ingestion')).toEqual([
      'BatchPayloadText1795600000000',
      'OutageRetries1795700000000',
      'Deletes1796000000000',
      'Webhooks1796100000000',
      'CurrentLanguageCodes1796200000000',
    ]);
    const [row] = await ds.query<Array<{ payload: string; type: string }>>(`SELECT payload, pg_typeof(payload)::text AS type FROM ingestion.upsert_batches WHERE upsert_id = $1`, [
      id,
    ]);
    expect(row.type).toBe('text');
    expect(JSON.parse(row.payload)).toEqual(payload);
    // An upsert queued before outages were told apart has had none, and no items stored; before deletes, it is an upsert.
    const [upsert] = await ds.query<unknown[]>(`SELECT outage_attempts, outage_since, items_stored, kind, target FROM ingestion.upserts WHERE id = $1`, [id]);
    expect(upsert).toEqual({ outage_attempts: 0, outage_since: null, items_stored: false, kind: 'upsert', target: null });
  });
});
