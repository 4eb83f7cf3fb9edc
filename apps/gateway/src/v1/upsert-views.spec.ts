import { BusClient } from '@askdata/common';
import { Scope, Subjects, UpsertStatus, UpsertView } from '@askdata/contracts';
import { UpsertViews } from './upsert-views';

const scope: Scope = { projectId: '00000000-0000-4000-8000-000000000001', tenancy: 'single' };
const view = (id: string, status: UpsertStatus): UpsertView => ({
  id,
  chunk_size: 1,
  status,
  started_at: null,
  completed_at: null,
  created_at: '2026-11-29T00:00:00.000000Z',
  collection: 'default',
  items_count: 1,
  error: null,
  attempts: status === 'queued' ? 0 : 1,
  kind: 'upsert',
  target: null,
});

/** Ingestion as the bus reaches it: the upserts it holds (newest first, the first `newest` of them its newest), and every request it was sent. */
function ingestion(upserts: UpsertView[]) {
  const sent: Array<{ subject: string; ids?: string[] }> = [];
  const held = { bus: null as unknown as BusClient, sent, upserts, newest: upserts.length };
  const bus = {
    request: (subject: string, req: { ids?: string[]; limit?: number }) => {
      sent.push(req.ids ? { subject, ids: req.ids } : { subject });
      if (subject === Subjects.ingestion.upsertsLookup) return Promise.resolve(upserts.filter((u) => req.ids!.includes(u.id)));
      if (subject === Subjects.ingestion.upsertsRecent) return Promise.resolve(upserts.slice(0, Math.min(req.limit!, held.newest)));
      return Promise.reject(new Error(`unexpected ${subject}`));
    },
  } as unknown as BusClient;
  held.bus = bus;
  return held;
}

describe('UpsertViews', () => {
  it('asks ingestion after catalog for a project not being loaded, and keeps finished upserts', async () => {
    const { bus, sent } = ingestion([view('u1', 'completed'), view('u2', 'completed')]);
    const views = new UpsertViews(bus);
    const recent = views.recent(scope);
    expect(await recent).toBeNull();
    expect([...(await views.byIds(scope, ['u1', 'u2'], recent)).keys()]).toEqual(['u1', 'u2']);
    expect(await views.byIds(scope, ['u2'])).toEqual(new Map([['u2', view('u2', 'completed')]]));
    expect(sent).toEqual([{ subject: Subjects.ingestion.upsertsLookup, ids: ['u1', 'u2'] }]);
  });

  it("once a project shows an upsert in progress, takes its lists' upserts from its newest, asked beside catalog", async () => {
    const held = ingestion([view('u3', 'processing'), view('u2', 'completed'), view('u1', 'completed')]);
    const views = new UpsertViews(held.bus);
    await views.byIds(scope, ['u3']);
    held.sent.length = 0;
    const recent = views.recent(scope);
    const shown = await views.byIds(scope, ['u3', 'u2'], recent);
    expect([...shown.values()].map((v) => `${v.id} ${v.status}`)).toEqual(['u3 processing', 'u2 completed']);
    expect(held.sent.map((s) => s.subject)).toEqual([Subjects.ingestion.upsertsRecent]);
    // An upsert not among the newest, or one still queued when they were read, is looked up.
    held.upserts[0] = view('u3', 'queued');
    held.upserts.push(view('u0', 'failed'));
    held.newest = 3;
    held.sent.length = 0;
    const again = await views.byIds(scope, ['u3', 'u0'], views.recent(scope));
    expect(held.sent).toEqual([{ subject: Subjects.ingestion.upsertsRecent }, { subject: Subjects.ingestion.upsertsLookup, ids: ['u3', 'u0'] }]);
    expect(again.get('u0')?.status).toBe('failed');
  });

  it('looks the upserts up after catalog when asking for the newest failed', async () => {
    const held = ingestion([view('u3', 'processing')]);
    const views = new UpsertViews(held.bus);
    await views.byIds(scope, ['u3']);
    const failing = {
      request: (subject: string, req: unknown) =>
        subject === Subjects.ingestion.upsertsRecent ? Promise.reject(new Error('down')) : held.bus.request(subject as never, req as never),
    };
    const flaky = new UpsertViews(failing as unknown as BusClient);
    await flaky.byIds(scope, ['u3']);
    held.sent.length = 0;
    const recent = flaky.recent(scope);
    expect(await recent).toBeNull();
    expect((await flaky.byIds(scope, ['u3'], recent)).get('u3')?.status).toBe('processing');
    expect(held.sent).toEqual([{ subject: Subjects.ingestion.upsertsLookup, ids: ['u3'] }]);
  });
});
