import { Client } from 'pg';
import { Api, Running, startService } from '../../bench/lib/service';
import { eventually, until } from './support/faults';

/**
 * The retrieval service vacuums its index tables itself as postings are written (INDEX_VACUUM_ROWS, here small),
 * so that dead rows left by replaced blocks are reclaimed and the planner's statistics stay current: after a load, the
 * postings' pages are all-visible without waiting for autovacuum, and searches find the same items as before. A table
 * another session holds (autovacuum, another replica) is skipped by the vacuum, and vacuumed after the next pause.
 */
jest.setTimeout(120000);

describe('index maintenance', () => {
  let service: Running;
  beforeAll(async () => {
    service = await startService('distributed', { INDEX_VACUUM_ROWS: '300' });
  });
  afterAll(() => service.stop());

  async function postingsTable(): Promise<{ vacuums: number; autovacuums: number; allVisible: number; pages: number }> {
    const db = new Client({ connectionString: service.databaseUrl! });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT s.vacuum_count::int AS vacuums, s.autovacuum_count::int AS autovacuums, c.relallvisible::int AS "allVisible", c.relpages::int AS pages
         FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
         WHERE s.schemaname = 'retrieval' AND s.relname = 'posting_blocks'`,
      );
      return rows[0];
    } finally {
      await db.end();
    }
  }

  it('vacuums the postings while items are upserted, leaving their pages all-visible', async () => {
    const api = await Api.withProject(service);
    expect((await postingsTable()).vacuums).toBe(0);
    const items = Array.from({ length: 120 }, (_, i) => ({
      id: `doc-${i}`,
      data: { title: `Document ${i}`, text: `Lighthouse keeper number ${i} logs the weather, tides, ships and storms of harbour ${i % 7}.` },
    }));
    await api.upsertAll(items, { batch: 20 });
    const after = await eventually(
      'the postings vacuumed',
      async () => {
        const t = await postingsTable();
        return t.vacuums > 0 && t.pages > 0 && t.allVisible === t.pages ? t : undefined;
      },
      30000,
    ).catch(told);
    expect(after.allVisible).toBe(after.pages);
    const hits = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'lighthouse keeper 42 harbour', limit: 3 });
    expect(hits.data[0].item_id).toBe('doc-42');

    // Autovacuum (or another replica) holds the postings while replaced items leave dead rows behind: the vacuum that
    // follows skips the table, and vacuums it once writing pauses again after the table is free.
    const holder = new Client({ connectionString: service.databaseUrl! });
    await holder.connect();
    let vacuumsHeld: number;
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE retrieval.posting_blocks IN SHARE UPDATE EXCLUSIVE MODE');
      // Counted once the table is held: the first load's work (a rewrite or a vacuum after its merges) may have
      // vacuumed it again since.
      const locked = await postingsTable();
      await api.upsertAll(
        items.slice(0, 60).map((item) => ({ ...item, data: { ...item.data, text: `${item.data.text} Replaced with a new log.` } })),
        { batch: 20 },
      );
      await until('a vacuum skipping the postings', async () => (await vacuumRuns('skipped')) > 0, 60000);
      vacuumsHeld = (await postingsTable()).vacuums;
      expect(vacuumsHeld).toBe(locked.vacuums);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    const again = await eventually(
      'the postings vacuumed after the skip',
      async () => {
        const t = await postingsTable();
        return t.vacuums > vacuumsHeld && t.allVisible === t.pages ? t : undefined;
      },
      30000,
    ).catch(told);
    expect(again.allVisible).toBe(again.pages);
  });

  /** What a test that timed out saw last: the postings' table and the index vacuums' outcomes. */
  async function told(e: Error): Promise<never> {
    const runs = Object.fromEntries(await Promise.all(['done', 'skipped', 'failed'].map(async (o) => [o, await vacuumRuns(o)])));
    throw new Error(`${e.message} (the postings: ${JSON.stringify(await postingsTable())}; index vacuums: ${JSON.stringify(runs)})`);
  }

  /** Index vacuums of every retrieval replica that ended with `outcome`. */
  async function vacuumRuns(outcome: string): Promise<number> {
    let n = 0;
    for (const port of service.opsPorts.get('retrieval') ?? []) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const m = new RegExp(`^askdata_index_vacuum_duration_seconds_count\\{kind="vacuum",outcome="${outcome}"\\} (\\d+)`, 'm').exec(text);
      n += Number(m?.[1] ?? 0);
    }
    return n;
  }
});
