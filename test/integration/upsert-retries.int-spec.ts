import { PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import { eventually } from './support/faults';

/**
 * An upsert whose processing keeps failing (the catalog service is gone) is retried after the backoff with the
 * reason on record: first without counting its attempts, for UPSERT_OUTAGE_RETRY_MS (short here), then
 * UPSERT_MAX_ATTEMPTS more times, then marked `failed` with that reason; once the catalog is back, new upserts complete.
 */
jest.setTimeout(120000);

interface UpsertState {
  status: string;
  attempts: number;
  error: string | null;
}

describe('an upsert that cannot be processed', () => {
  let nats: PrivateNats;
  let service: Running;

  beforeAll(async () => {
    nats = await PrivateNats.start();
    // The lease is long: a retry must come from the recorded failure and its backoff, not from the lease expiring.
    service = await startService(
      'distributed',
      {
        UPSERT_MAX_ATTEMPTS: '3',
        UPSERT_RETRY_BACKOFF_MS: '300',
        UPSERT_LEASE_MS: '600000',
        BUS_TIMEOUT_MS: '2000',
        UPSERT_OUTAGE_RETRY_MS: '2000',
        UPSERT_OUTAGE_BACKOFF_MAX_MS: '600',
      },
      0,
      { natsUrl: nats.url },
    );
  });
  afterAll(async () => {
    await service?.stop();
    await nats?.destroy();
  });

  it('is retried after the backoff, then fails with the reason; later upserts complete once the catalog is back', async () => {
    const api = await Api.withProject(service);
    const [catalog] = service.processes.get('catalog')!;
    catalog.kill('SIGTERM');
    await new Promise((r) => catalog.once('exit', r));

    const { data: receipt } = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: [{ id: 'a', data: { text: 'kept for later' } }] });
    const statuses: string[] = [];
    let retryingWithReason = false;
    const failed = await eventually(
      'the upsert failed',
      async () => {
        const { data } = await api.call<{ data: UpsertState }>('GET', `/upserts/${receipt.id}`);
        statuses.push(data.status);
        if (data.status === 'processing' && data.error) retryingWithReason = true;
        return data.status === 'failed' ? data : undefined;
      },
      60000,
    );
    // The attempts during the outage window did not count: more than UPSERT_MAX_ATTEMPTS were made in all.
    expect(failed.attempts).toBeGreaterThan(3);
    expect(failed.error).toMatch(/catalog/);
    // Catalog never stored its items, and the error does not say it did.
    expect(failed.error).not.toMatch(/were stored/);
    // Between attempts it stays processing, with the last attempt's reason: the status never goes back to queued.
    expect(retryingWithReason).toBe(true);
    expect(statuses.slice(statuses.indexOf('processing'))).not.toContain('queued');

    // Once the catalog is back (ready): a catalog still starting would fail the new upsert's attempts too.
    const { opsPort } = service.spawnApp('catalog');
    await eventually('the catalog is back', async () => ((await fetch(`http://127.0.0.1:${opsPort}/health/ready`)).ok ? true : undefined), 60000);
    const { data: again } = await api.call<{ data: { id: string } }>('POST', '/upserts', { items: [{ id: 'a', data: { text: 'kept for later' } }] });
    await api.waitCompleted([again.id], 60000);
    const hits = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'kept for later' });
    expect(hits.data.map((h) => h.item_id)).toEqual(['a']);
  });
});
