import type { Caller } from './caller';
import { VerifiedKeys } from './verified-keys';

describe('VerifiedKeys', () => {
  const caller = (projectId: string) => ({ keyId: 'k', scope: { projectId, tenancy: 'single' }, instructions: null, kind: 'secret', origins: [] }) as unknown as Caller;

  it('asks for one refresh of a key in use once half its time has passed, and renews or forgets it by the outcome', () => {
    const keys = new VerifiedKeys(null);
    const now = Date.now();
    keys.remember('h', caller('p1'), keys.version, now - 1000);
    expect(keys.refreshDue('h', now)).toBe(false);
    keys.remember('h', caller('p1'), keys.version, now - 6000);
    expect(keys.refreshDue('h', now)).toBe(true);
    expect(keys.refreshDue('h', now)).toBe(false);
    // The lookup failed: kept as it was, and due again.
    keys.refreshed('h', undefined, keys.version);
    expect(keys.get('h', now)?.scope.projectId).toBe('p1');
    expect(keys.refreshDue('h', now)).toBe(true);
    keys.refreshed('h', caller('p2'), keys.version);
    expect(keys.get('h')?.scope.projectId).toBe('p2');
    expect(keys.refreshDue('h')).toBe(false);
    // The key is gone.
    keys.remember('h', caller('p2'), keys.version, now - 6000);
    expect(keys.refreshDue('h', now)).toBe(true);
    keys.refreshed('h', null, keys.version);
    expect(keys.get('h')).toBeUndefined();
  });

  it('does not renew a key from a lookup begun before a change', async () => {
    const keys = new VerifiedKeys(null);
    const now = Date.now();
    keys.remember('h', caller('p1'), keys.version, now - 6000);
    expect(keys.refreshDue('h', now)).toBe(true);
    const since = keys.version;
    // A change (standalone: forgotten here once it is committed) forgets every key.
    await keys.settled(await keys.announce({ query: () => Promise.resolve([]) }));
    keys.refreshed('h', caller('p1'), since);
    expect(keys.get('h')).toBeUndefined();
  });
});
