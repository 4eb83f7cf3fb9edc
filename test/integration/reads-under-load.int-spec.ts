import { Api, Running, startService } from '../../bench/lib/service';
import { sleep, streamItem } from './support/faults';

/**
 * Reads while a backlog of upserts is ingested: every list, search and question of the project being loaded and of
 * another project is answered, none with 503, however busy the services are with the backlog. The services run
 * with small database pools and a short bus timeout, so that a read queued behind the backlog's writes would fail.
 */
jest.setTimeout(300000);

const UPSERTS = 16;
const ITEMS_PER_UPSERT = 500;

interface Read {
  what: string;
  status: number;
  body: string;
}

describe('reads during a backlog of upserts', () => {
  let service: Running;

  beforeAll(async () => {
    service = await startService('distributed', { DATABASE_POOL_SIZE: '3', DATABASE_READ_CONNECTIONS: '2', BUS_TIMEOUT_MS: '4000' });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('answers every read of both projects while the backlog is worked off', async () => {
    const loaded = await Api.withProject(service);
    const other = await Api.withProject(service);
    await other.upsertAll(Array.from({ length: 200 }, (_, i) => streamItem(900000 + i)));
    await loaded.upsertAll(Array.from({ length: 200 }, (_, i) => streamItem(800000 + i)));

    const ids: string[] = [];
    for (let u = 0; u < UPSERTS; u++) {
      const items = Array.from({ length: ITEMS_PER_UPSERT }, (_, i) => streamItem(u * ITEMS_PER_UPSERT + i));
      ids.push((await loaded.call<{ data: { id: string } }>('POST', '/upserts', { items })).data.id);
    }
    let done = false;
    const backlog = loaded.waitCompleted(ids, 240000).finally(() => (done = true));

    const reads: Read[] = [];
    const read = async (api: Api, project: string, what: string, init: RequestInit, path: string) => {
      const res = await fetch(`${api.url}/v1${path}`, { ...init, headers: { 'Api-Key': api.key, 'Content-Type': 'application/json' } });
      reads.push({ what: `${what} (${project})`, status: res.status, body: res.status >= 300 ? await res.text() : (await res.arrayBuffer(), '') });
    };
    const reader = async (api: Api, project: string) => {
      for (let n = 0; !done; n++) {
        await read(api, project, 'GET /v1/items', { method: 'GET' }, `/items?page=${1 + (n % 3)}`);
        await read(api, project, 'POST /v1/search', { method: 'POST', body: JSON.stringify({ text: `harbour note ${n}` }) }, '/search');
        await read(api, project, 'POST /v1/query', { method: 'POST', body: JSON.stringify({ text: `When does the glacier open? ${n}` }) }, '/query');
        await sleep(20);
      }
    };
    await Promise.all([reader(loaded, 'loaded'), reader(other, 'other'), backlog]);

    // Reads went on through the backlog, on both projects, and each was answered.
    expect(reads.filter((r) => r.what.endsWith('(loaded)')).length).toBeGreaterThanOrEqual(30);
    expect(reads.filter((r) => r.what.endsWith('(other)')).length).toBeGreaterThanOrEqual(30);
    expect(reads.filter((r) => r.status < 200 || r.status >= 300)).toEqual([]);

    // The backlog is all there afterwards.
    const { meta } = await loaded.call<{ meta: { total: number } }>('GET', '/items?per_page=1');
    expect(meta.total).toBe(200 + UPSERTS * ITEMS_PER_UPSERT);
  });
});
