import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { connect } from 'nats';
import { PrivateNats } from '../../bench/lib/private-infra';
import { adminQuery, Api, Running, startService } from '../../bench/lib/service';
import { eventually, streamItem } from './support/faults';

/**
 * Two deployments on one NATS server (staging and production on a shared cluster, say) keep apart when each has
 * its NATS_SUBJECT_PREFIX: a service of the other deployment never answers this one's requests, while a replica of
 * the same deployment shares its work. Without namespaces the same subjects and queue groups would mix them.
 */
jest.setTimeout(180000);

const ROOT = join(__dirname, '..', '..');
const MIGRATE = join(ROOT, 'dist', 'launcher', 'src', 'migrate.js');
const PREFIX = 'acme.prod';
const ITEMS = 12;

describe('deployments sharing one NATS server', () => {
  let nats: PrivateNats;
  let service: Running;
  let api: Api;
  const pgAdmin = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const otherName = `askdata_ns_other_${process.pid}`;
  const otherDb = Object.assign(new URL(pgAdmin), { pathname: `/${otherName}` }).toString();

  beforeAll(async () => {
    nats = await PrivateNats.start();
    // Lists not kept by the gateway: every one of them must reach a catalog, whose answer tells which one it was.
    service = await startService('distributed', { NATS_SUBJECT_PREFIX: PREFIX, LIST_CACHE_TTL_MS: '0' }, 0, { natsUrl: nats.url });
    api = await Api.withProject(service);
    await api.upsertAll(
      Array.from({ length: ITEMS }, (_, i) => streamItem(i)),
      { batch: ITEMS, parallel: 1 },
    );
    // The database of another deployment: migrated, and empty.
    execFileSync(process.execPath, [MIGRATE, '--create-database'], { env: { ...process.env, DATABASE_URL: otherDb }, stdio: 'ignore' });
  });
  afterAll(async () => {
    await service?.stop();
    await adminQuery(pgAdmin, `DROP DATABASE IF EXISTS ${otherName} WITH (FORCE)`).catch(() => undefined);
    await nats?.destroy();
  });

  /** Starts a catalog process over the other (empty) database in the given namespace, and waits until it is ready. */
  async function strangerCatalog(prefix: string) {
    const started = service.spawnApp('catalog', { DATABASE_URL: otherDb, NATS_SUBJECT_PREFIX: prefix });
    await eventually('the other catalog', async () => ((await fetch(`http://127.0.0.1:${started.opsPort}/health/ready`)).ok ? true : undefined), 60000);
    return started.process;
  }

  /** The total of the items list, asked `n` times: whichever catalog answers, the total says whose data it has. */
  async function listedTotals(n: number): Promise<number[]> {
    const totals: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${service.url}/v1/items`, { headers: { 'Api-Key': api.key } });
      totals.push(res.ok ? ((await res.json()) as { meta: { total: number } }).meta.total : -res.status);
    }
    return totals;
  }

  it('processes upserts in its namespace, through a doorbell stream of its own', async () => {
    expect(await listedTotals(1)).toEqual([ITEMS]);
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await nc.jetstreamManager();
      const streams = (await jsm.streams.list().next()).map((s) => ({ name: s.config.name, subjects: s.config.subjects }));
      expect(streams).toEqual([{ name: 'INGESTION_DOORBELL_acme_prod', subjects: ['acme.prod.ingestion.upsert.queued.v1'] }]);
    } finally {
      await nc.close();
    }
  });

  it('never sends a request to a service of another namespace', async () => {
    const other = await strangerCatalog('acme.staging');
    try {
      expect(new Set(await listedTotals(30))).toEqual(new Set([ITEMS]));
    } finally {
      other.kill('SIGTERM');
    }
  });

  it('shares the work with a replica of its own namespace (so the check above would see a stranger)', async () => {
    const replica = await strangerCatalog(PREFIX);
    try {
      const totals = await listedTotals(30);
      // Each request goes to one of the two queue members: some reach the replica, whose database is empty.
      expect(totals).toContain(ITEMS);
      expect(totals.some((t) => t !== ITEMS)).toBe(true);
    } finally {
      replica.kill('SIGTERM');
    }
  });
});
