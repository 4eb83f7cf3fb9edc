import type { BusClient } from '@askdata/common';
import { ResolvedCollection, Subjects } from '@askdata/contracts';
import { CollectionsResolved } from './collections-resolved';

/** A bus whose catalog answers with the collections it holds, counting the requests, and whose announcements the test sends. */
function fakeBus(opts: { subscribes?: boolean } = {}) {
  let announce: (payload: { projectId: string }) => void = () => undefined;
  const connection = { lost: () => undefined, restored: () => undefined };
  const catalog = new Map<string, ResolvedCollection[]>();
  let pending: Array<() => void> = [];
  const bus = {
    asked: 0,
    /** Answers wait until `answer()` while held. */
    held: false,
    catalog,
    announce: (projectId: string) => announce({ projectId }),
    lose: () => connection.lost(),
    restore: () => connection.restored(),
    answer: () => {
      pending.forEach((go) => go());
      pending = [];
    },
    watchConnection: (l: typeof connection) => Object.assign(connection, l),
    subscribe: (subject: string, handler: typeof announce) => {
      expect(subject).toBe(Subjects.catalog.changed);
      if (opts.subscribes === false) return Promise.reject(new Error('no bus'));
      announce = handler;
      return Promise.resolve(true);
    },
    request: async (subject: string, req: { scope: { projectId: string }; slugs: string[] | null }) => {
      expect(subject).toBe(Subjects.catalog.collectionsResolve);
      bus.asked++;
      // Read when asked, answered when let go.
      const found = catalog.get(req.scope.projectId) ?? [];
      if (req.slugs?.some((s) => !found.some((c) => c.slug === s))) throw new Error('422');
      if (bus.held) await new Promise<void>((go) => pending.push(go));
      return found.filter((c) => !req.slugs || req.slugs.includes(c.slug));
    },
  };
  return bus;
}

const scope = (projectId: string) => ({ projectId, tenancy: 'single' as const });
const lights: ResolvedCollection = { id: '1', slug: 'lights', fields: [{ name: 'shade', type: 'string' }] };

describe('CollectionsResolved', () => {
  async function started(bus: ReturnType<typeof fakeBus>) {
    const resolved = new CollectionsResolved(bus as unknown as BusClient);
    await resolved.onApplicationBootstrap();
    bus.catalog.set('p', [lights]);
    bus.catalog.set('q', [lights]);
    return resolved;
  }

  it('asks catalog once per project and collections until the project is announced changed', async () => {
    const bus = fakeBus();
    const resolved = await started(bus);
    expect(await resolved.resolve(scope('p'), null)).toEqual([lights]);
    expect(await resolved.resolve(scope('p'), null)).toEqual([lights]);
    expect(await resolved.resolve(scope('p'), ['lights'])).toEqual([lights]);
    expect(await resolved.resolve(scope('q'), null)).toEqual([lights]);
    expect(bus.asked).toBe(3);
    bus.catalog.set('p', []);
    bus.announce('p');
    expect(await resolved.resolve(scope('p'), null)).toEqual([]);
    expect(await resolved.resolve(scope('q'), null)).toEqual([lights]);
    expect(bus.asked).toBe(4);
    await expect(resolved.resolve(scope('p'), ['lights'])).rejects.toThrow('422');
    await expect(resolved.resolve(scope('p'), ['lights'])).rejects.toThrow('422');
    expect(bus.asked).toBe(6);
  });

  it('keeps no answer asked before an announcement heard while it was on its way', async () => {
    const bus = fakeBus();
    const resolved = await started(bus);
    bus.held = true;
    const asked = resolved.resolve(scope('p'), null);
    await Promise.resolve();
    bus.catalog.set('p', []);
    bus.announce('p');
    bus.answer();
    expect(await asked).toEqual([lights]);
    bus.held = false;
    expect(await resolved.resolve(scope('p'), null)).toEqual([]);
    expect(bus.asked).toBe(2);
  });

  it('keeps nothing while the connection is down, and lets go of everything when it drops', async () => {
    const bus = fakeBus();
    const resolved = await started(bus);
    await resolved.resolve(scope('p'), null);
    bus.lose();
    await resolved.resolve(scope('p'), null);
    await resolved.resolve(scope('p'), null);
    expect(bus.asked).toBe(3);
    bus.restore();
    await resolved.resolve(scope('p'), null);
    await resolved.resolve(scope('p'), null);
    expect(bus.asked).toBe(4);
  });

  it('keeps nothing when it cannot hear announcements, and nothing beyond a minute', async () => {
    const deaf = fakeBus({ subscribes: false });
    const resolvedDeaf = await started(deaf);
    await resolvedDeaf.resolve(scope('p'), null);
    await resolvedDeaf.resolve(scope('p'), null);
    expect(deaf.asked).toBe(2);
    resolvedDeaf.onApplicationShutdown();

    const bus = fakeBus();
    const resolved = await started(bus);
    const now = jest.spyOn(Date, 'now');
    now.mockReturnValue(1_000_000);
    await resolved.resolve(scope('p'), null);
    now.mockReturnValue(1_059_000);
    await resolved.resolve(scope('p'), null);
    expect(bus.asked).toBe(1);
    now.mockReturnValue(1_061_000);
    await resolved.resolve(scope('p'), null);
    expect(bus.asked).toBe(2);
    now.mockRestore();
  });
});
