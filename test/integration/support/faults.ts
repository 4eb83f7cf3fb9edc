import { Client } from 'pg';
import { forwardOf } from '../../../apps/retrieval/src/index/forward-entries';
import { freePort, PrivateNats } from '../../../bench/lib/private-infra';
import { Api, Running, startService } from '../../../bench/lib/service';

/**
 * What the fault tests share: a steady stream of client traffic that records every answer, and the checks that
 * nothing accepted was lost and nothing was half-written.
 */

export interface Outcome {
  op: 'upsert' | 'query' | 'items' | 'upsert-status';
  /** HTTP status, or 0 when the client gave up waiting (the request hung). */
  status: number;
  start: number;
  end: number;
  body: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TOPICS = ['harbour', 'glacier', 'orchard', 'volcano', 'lantern', 'meadow', 'quarry', 'canyon'];

/** Item `n` of the stream: the same id always carries the same text, so re-sending it changes nothing. */
export function streamItem(n: number): { id: string; data: { title: string; text: string } } {
  const topic = TOPICS[n % TOPICS.length];
  return {
    id: `stream-${n}`,
    data: { title: `Note ${n} about the ${topic}`, text: `The ${topic} note number ${n} says the ${topic} opens at ${n % 12} o'clock. Marker m${n}x.` },
  };
}

/**
 * Three clients in parallel until stopped: one posting small upserts (each re-sending an item of an earlier batch),
 * one asking questions, one listing items and polling the last accepted upsert. Each request is abandoned after
 * `hangMs`, and then recorded with status 0.
 */
export class Traffic {
  readonly outcomes: Outcome[] = [];
  /** Upserts answered 201: id -> the client ids of their items. */
  readonly accepted = new Map<string, string[]>();
  /** Every client item id ever sent, accepted or not. */
  readonly sent = new Set<string>();
  private running = false;
  private loops: Array<Promise<void>> = [];
  private next = 0;
  private lastAccepted: string | null = null;

  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly hangMs: number,
  ) {}

  start(): void {
    this.running = true;
    this.loops = [this.loop(() => this.upsert()), this.loop(() => this.question()), this.loop(() => this.read())];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  between(from: number, to = Infinity): Outcome[] {
    return this.outcomes.filter((o) => o.start >= from && o.start < to);
  }

  /** Resolves once `count` requests that started after `from` have answered 2xx (the service works again). */
  async succeeding(from: number, count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.outcomes.filter((o) => o.start >= from && o.status >= 200 && o.status < 300).length < count) {
      if (Date.now() > deadline) throw new Error(`no recovery within ${timeoutMs} ms; last answers: ${this.tail()}`);
      await sleep(100);
    }
  }

  tail(n = 5): string {
    return this.outcomes
      .slice(-n)
      .map((o) => `${o.op} ${o.status} ${o.body.slice(0, 120)}`)
      .join(' | ');
  }

  private async loop(step: () => Promise<void>): Promise<void> {
    while (this.running) {
      await step();
      await sleep(25);
    }
  }

  private async upsert(): Promise<void> {
    const n = this.next;
    this.next += 4;
    const items = [0, 1, 2, 3].map((i) => streamItem(n + i));
    if (n >= 8) items.push(streamItem(n - 8));
    items.forEach((it) => this.sent.add(it.id));
    const o = await this.send('upsert', 'POST', '/upserts', { items });
    if (o.status === 201) {
      const id = (JSON.parse(o.body) as { data: { id: string } }).data.id;
      this.accepted.set(
        id,
        items.map((it) => it.id),
      );
      this.lastAccepted = id;
    }
  }

  private async question(): Promise<void> {
    await this.send('query', 'POST', '/query', { text: `When does the ${TOPICS[this.outcomes.length % TOPICS.length]} open?` });
  }

  private async read(): Promise<void> {
    await this.send('items', 'GET', '/items?per_page=5');
    if (this.lastAccepted) await this.send('upsert-status', 'GET', `/upserts/${this.lastAccepted}`);
  }

  private async send(op: Outcome['op'], method: string, path: string, body?: unknown): Promise<Outcome> {
    const start = Date.now();
    let status = 0;
    let text = '';
    try {
      const res = await fetch(`${this.url}/v1${path}`, {
        method,
        headers: { 'Api-Key': this.key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.hangMs),
      });
      status = res.status;
      text = await res.text();
    } catch (e) {
      text = (e as Error).message;
    }
    const outcome = { op, status, start, end: Date.now(), body: text };
    this.outcomes.push(outcome);
    return outcome;
  }
}

/** Statuses with how often each came, e.g. `{ "200": 40, "503": 7 }`. */
export function statusCounts(outcomes: Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[o.status] = (out[o.status] ?? 0) + 1;
  return out;
}

/** Answers other than success and 503, with what they said: what a fault must never produce. */
export function unexpected(outcomes: Outcome[]): string[] {
  return outcomes.filter((o) => !(o.status >= 200 && o.status < 300) && o.status !== 503).map((o) => `${o.op} ${o.status} ${o.body.slice(0, 200)}`);
}

/** Polls the service's own health endpoints: the gateway's and every bus service's `/health/ready`. */
export async function readiness(service: Running): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [app, ports] of service.opsPorts) {
    for (const [i, port] of ports.entries()) {
      const status = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(10000) }).then(
        (r) => r.status,
        () => 0,
      );
      out[ports.length > 1 ? `${app}#${i}` : app] = status;
    }
  }
  return out;
}

export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** Polls `condition` (a failing one counts as false) until it holds; throws when it has not within `timeoutMs`. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20000): Promise<void> {
  await eventually(what, async () => ((await condition()) ? true : undefined), timeoutMs);
}

/** Every client item id the project's items list holds, through the public API (all pages). */
export async function listedItemIds(url: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}/v1/items?per_page=100&page=${page}`, { headers: { 'Api-Key': key } });
    if (res.status !== 200) throw new Error(`GET /v1/items answered ${res.status}`);
    const body = (await res.json()) as { data: Array<{ item_id: string }>; meta: { last_page: number } };
    ids.push(...body.data.map((i) => i.item_id));
    if (page >= body.meta.last_page) return ids;
  }
}

/** How the stored data disagrees with itself; every count is 0 when nothing was half-written. */
export interface Inconsistencies {
  /** Unfinished or failed upserts without their stored batch, batches of no upsert, completed upserts still holding theirs. */
  upsertsWithoutBatch: number;
  /** Upserts not `completed`. */
  upsertsNotCompleted: number;
  /** Collections whose items_count is not their number of items. */
  collectionCounts: number;
  /** Items with no chunk in the index, and chunks of no item. */
  itemsWithoutChunks: number;
  chunksWithoutItem: number;
  /** Chunks stored twice for the same (item, number). */
  duplicateChunks: number;
  /** Blocks' counts and collection sizes that are not what the postings and chunks say, empty blocks kept, and postings of no chunk. */
  statisticsDrift: number;
  /** Chats whose messages are not question and answer pairs. */
  chatsHalfWritten: number;
}

/** Postings whose chunk is missing, was written before the posting's block, or does not hold the posting's term. */
async function postingsOfNoChunk(db: Client): Promise<number> {
  const { rows } = await db.query<{ id: string; block: string; forward: Buffer | null; terms: Record<string, number> | null; postings: Array<[string, string]> }>(
    `SELECT p.chunk_id::text AS id, c.block::text AS block, c.forward, c.terms, json_agg(json_build_array(b.term, b.block::text)) AS postings
     FROM retrieval.posting_blocks b CROSS JOIN LATERAL unnest(b.chunk_ids) AS p(chunk_id)
     LEFT JOIN retrieval.chunks c ON c.id = p.chunk_id
     GROUP BY 1, 2, 3, 4`,
  );
  let missing = 0;
  for (const c of rows) {
    const names = c.block === null ? new Set<string>() : new Set(forwardOf(c).names);
    for (const [term, block] of c.postings) if (!names.has(term) || BigInt(c.block ?? -1) < BigInt(block)) missing++;
  }
  return missing;
}

export async function inconsistencies(databaseUrl: string): Promise<Inconsistencies> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const count = async (sql: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) x`)).rows[0].n;
  try {
    return {
      upsertsWithoutBatch: await count(`SELECT 1 FROM ingestion.upserts u FULL JOIN ingestion.upsert_batches b ON b.upsert_id = u.id
          WHERE u.id IS NULL OR (b.upsert_id IS NULL) <> (u.status = 'completed')`),
      upsertsNotCompleted: await count(`SELECT 1 FROM ingestion.upserts WHERE status <> 'completed'`),
      collectionCounts: await count(`SELECT 1 FROM catalog.collections c WHERE c.items_count <> (SELECT count(*) FROM catalog.items i WHERE i.collection_id = c.id)`),
      itemsWithoutChunks: await count(`SELECT 1 FROM catalog.items i WHERE NOT EXISTS (SELECT 1 FROM retrieval.chunks c WHERE c.item_id = i.id)`),
      chunksWithoutItem: await count(`SELECT 1 FROM retrieval.chunks c WHERE NOT EXISTS (SELECT 1 FROM catalog.items i WHERE i.id = c.item_id)`),
      duplicateChunks: await count(`SELECT 1 FROM retrieval.chunks GROUP BY item_id, n HAVING count(*) > 1`),
      statisticsDrift:
        (await count(`SELECT 1 FROM retrieval.posting_blocks WHERE n <> cardinality(chunk_ids)`)) +
        (await count(`
          SELECT 1 FROM retrieval.stats s
          LEFT JOIN (SELECT project_id, count(*) AS c, sum(length) AS l FROM retrieval.chunks GROUP BY 1) c USING (project_id)
          WHERE s.chunk_count <> COALESCE(c.c, 0) OR s.total_length <> COALESCE(c.l, 0)`)) +
        (await count(`SELECT 1 FROM retrieval.posting_blocks WHERE cardinality(chunk_ids) = 0`)) +
        (await postingsOfNoChunk(db)),
      chatsHalfWritten: await count(`
        SELECT 1 FROM conversation.chats c
        LEFT JOIN conversation.messages m ON m.chat_id = c.id
        GROUP BY c.id
        HAVING count(m.id) = 0 OR count(m.id) FILTER (WHERE m.role = 'user') <> count(m.id) FILTER (WHERE m.role = 'assistant')`),
    };
  } finally {
    await db.end();
  }
}

export const CONSISTENT: Inconsistencies = {
  upsertsWithoutBatch: 0,
  upsertsNotCompleted: 0,
  collectionCounts: 0,
  itemsWithoutChunks: 0,
  chunksWithoutItem: 0,
  duplicateChunks: 0,
  statisticsDrift: 0,
  chatsHalfWritten: 0,
};

/** What happened around an outage: the traffic, when the dependency went and came back, and readiness meanwhile. */
export interface OutageRun {
  traffic: Traffic;
  down: number;
  up: number;
  /** `/health/ready` of every app, taken while the dependency was away. */
  readyWhileDown: Record<string, number>;
  /** The gateway's `/health` (every service over the bus), taken while the dependency was away. */
  systemWhileDown: number;
}

/**
 * Runs the traffic, takes the dependency away for `downMs` once the service answers steadily, brings it back, and
 * returns once every kind of request succeeds again (without restarting any app).
 */
export async function outageUnderTraffic(
  service: Running,
  key: string,
  dependency: { stop(): Promise<void>; start(): Promise<void> },
  opts: { downMs: number; hangMs: number },
): Promise<OutageRun> {
  const traffic = new Traffic(service.url, key, opts.hangMs);
  traffic.start();
  try {
    await traffic.succeeding(0, 30, 30000);
    const down = Date.now();
    await dependency.stop();
    await sleep(opts.downMs / 3);
    const readyWhileDown = await readiness(service);
    const systemWhileDown = await fetch(`${service.url}/health`, { signal: AbortSignal.timeout(opts.hangMs) }).then(
      (r) => r.status,
      () => 0,
    );
    await sleep(Math.max(0, down + opts.downMs - Date.now()));
    const up = Date.now();
    await dependency.start();
    for (const op of ['upsert', 'query', 'items'] as const) {
      await eventually(`${op} succeeding again`, async () => (traffic.between(up).some((o) => o.op === op && o.status < 300) ? true : undefined), 60000);
    }
    await sleep(1000);
    return { traffic, down, up, readyWhileDown, systemWhileDown };
  } finally {
    await traffic.stop();
  }
}

/**
 * After the outage: every app ready again, every accepted upsert completed with its items listed once each, no item
 * the client never sent, every stored upsert completed (also those whose 201 was lost), nothing half-written.
 */
export async function expectRecoveredWithNothingLost(service: Running, api: Api, traffic: Traffic): Promise<void> {
  expect(
    await eventually(
      'every app ready',
      async () => {
        const r = await readiness(service);
        return Object.values(r).every((s) => s === 200) ? r : undefined;
      },
      30000,
    ),
  ).toBeDefined();
  expect(traffic.accepted.size).toBeGreaterThan(5);
  await api.waitCompleted([...traffic.accepted.keys()], 90000);
  const listed = await listedItemIds(service.url, api.key);
  expect(new Set(listed).size).toBe(listed.length);
  const acceptedIds = new Set([...traffic.accepted.values()].flat());
  expect([...acceptedIds].filter((id) => !listed.includes(id))).toEqual([]);
  expect(listed.filter((id) => !traffic.sent.has(id))).toEqual([]);
  expect(
    await eventually(
      'all stored upserts completed',
      async () => {
        const found = await inconsistencies(service.databaseUrl!);
        return found.upsertsNotCompleted === 0 ? found : undefined;
      },
      60000,
    ),
  ).toEqual(CONSISTENT);
}

/**
 * While the dependency was away: every app reported not ready, the system health said so, requests answered 503;
 * and over the whole run only successes and 503s, with no request hanging (in flight at the cut included).
 */
export function expectOutageAnswered503(run: OutageRun): void {
  expect(Object.entries(run.readyWhileDown).filter(([, status]) => status !== 503)).toEqual([]);
  expect(run.systemWhileDown).toBe(503);
  expect(statusCounts(run.traffic.between(run.down + 500, run.up))['503']).toBeGreaterThan(0);
  expect(unexpected(run.traffic.outcomes)).toEqual([]);
}

/**
 * A distributed deployment on a NATS server of its own, with a second gateway (at `second`) beside the first. A
 * free port can still be taken before the gateway binds it (an outgoing connection's local port): then the gateway
 * exits, and another port is tried.
 */
export async function twoGateways(env: Record<string, string> = {}): Promise<{ nats: PrivateNats; service: Running; second: string; stop(): Promise<void> }> {
  const nats = await PrivateNats.start();
  let service: Running | null = null;
  const stop = async () => {
    await service?.stop();
    await nats.destroy();
  };
  try {
    service = await startService('distributed', env, 0, { natsUrl: nats.url });
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const { process: gateway } = service.spawnApp('gateway', { PORT: String(port) });
      const second = `http://127.0.0.1:${port}`;
      const ready = await eventually(
        'the second gateway',
        async () => (gateway.exitCode !== null ? 'exited' : (await fetch(`${second}/health/ready`)).ok ? 'ready' : undefined),
        60000,
      );
      if (ready === 'ready') return { nats, service, second, stop };
      if (attempt === 3) throw new Error('the second gateway exited three times at start');
    }
  } catch (e) {
    await stop();
    throw e;
  }
}
