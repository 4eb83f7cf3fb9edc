import { connect } from 'nats';
import { PrivateNats } from '../../bench/lib/private-infra';
import { Api, Running, startService } from '../../bench/lib/service';
import { eventually } from './support/faults';

/**
 * A request or reply larger than the NATS server carries (`max_payload`: 1 MiB by default, while an upsert may be
 * 10 MiB) still gets through: its body goes by the deployment's object store. Here the server carries 64 KiB, so an
 * upsert of ~250 KB, catalog's copy of it, retrieval's index batch of its items (`INDEX_BATCH_BYTES` above the server's
 * size) and a page of a hundred items all take that way.
 */
jest.setTimeout(180000);

const MAX_PAYLOAD = 64 * 1024;
const PREFIX = 'big.test';

const item = (i: number) => ({
  id: `note-${i}`,
  data: { title: `Note ${i}`, text: `Ledger entry ${i} for the quarry at kilometre ${i}. ${'Gravel shipped by barge, weighed at the dock. '.repeat(40)}` },
  metadata: { n: i },
});

describe('bus messages larger than the NATS server carries', () => {
  let nats: PrivateNats;
  let service: Running;

  beforeAll(async () => {
    nats = await PrivateNats.start(undefined, { maxPayload: MAX_PAYLOAD });
    service = await startService('distributed', { NATS_SUBJECT_PREFIX: PREFIX, LIST_CACHE_TTL_MS: '0', INDEX_BATCH_BYTES: String(1024 * 1024) }, 0, { natsUrl: nats.url });
  });
  afterAll(async () => {
    await service?.stop();
    await nats?.destroy();
  });

  it('upserts, lists and searches through the object store, and leaves nothing stored behind', async () => {
    const nc = await connect({ servers: nats.url });
    try {
      expect(nc.info?.max_payload).toBe(MAX_PAYLOAD);
      const api = await Api.withProject(service);
      const items = Array.from({ length: 120 }, (_, i) => item(i));
      expect(JSON.stringify({ items }).length).toBeGreaterThan(3 * MAX_PAYLOAD);
      const [id] = await api.upsertAll(items, { batch: 120, parallel: 1 });
      const { data: upsert } = await api.call<{ data: { status: string; attempts: number } }>('GET', `/upserts/${id}`);
      expect(upsert).toMatchObject({ status: 'completed', attempts: 1 });

      const page = await api.call<{ data: Array<{ item_id: string; data: unknown; metadata: unknown }>; meta: { total: number } }>('GET', '/items?per_page=100');
      expect(page.meta.total).toBe(120);
      expect(JSON.stringify(page).length).toBeGreaterThan(MAX_PAYLOAD);
      const sent = new Map(items.map((i) => [i.id, i]));
      for (const got of page.data) {
        expect(got.data).toEqual(sent.get(got.item_id)?.data);
        expect(got.metadata).toEqual(sent.get(got.item_id)?.metadata);
      }
      const hits = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: 'ledger entry 77 kilometre 77', limit: 3 });
      expect(hits.data[0].item_id).toBe('note-77');

      // The bodies went by the store (made on first use), and every one was taken out by its reader.
      const jsm = await nc.jetstreamManager();
      expect((await jsm.streams.info('OBJ_big_test-bus-bodies')).config.storage).toBe('memory');
      const store = await nc.jetstream().views.os('big_test-bus-bodies');
      const left = await eventually('the stored bodies removed', async () => ((await store.list()).length === 0 ? true : undefined), 30000);
      expect(left).toBe(true);
    } finally {
      await nc.close();
    }
  });
});
