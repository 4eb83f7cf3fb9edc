import { BusClient, loadConfig } from '@askdata/common';
import { Scope } from '@askdata/contracts';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { gatewaySettings } from '../gateway.config';
import { ListCache, weakEtag } from './list-cache';

/** A bus whose announcements and connection events the test sends by hand. */
class FakeBus {
  announce: (payload: { projectId: string; applied?: string[]; settled?: string[] }) => void = () => undefined;
  connection: { lost(): void; restored(): void } | null = null;
  failSubscribe = false;

  client(): BusClient {
    return {
      subscribe: async (_subject: string, handler: (payload: { projectId: string; applied?: string[]; settled?: string[] }) => void) => {
        if (this.failSubscribe) throw new Error('bus down');
        this.announce = handler;
        return true;
      },
      watchConnection: (listener: { lost(): void; restored(): void }) => {
        this.connection = listener;
      },
    } as unknown as BusClient;
  }
}

async function started(env: Record<string, string> = {}, bus = new FakeBus()) {
  const cache = new ListCache(loadConfig(gatewaySettings, env), bus.client());
  await cache.onApplicationBootstrap();
  return { cache, bus };
}

const scope: Scope = { projectId: 'p1', tenancy: 'single' };

function request(url: string, host = 'api.example'): Request {
  return { method: 'GET', protocol: 'http', originalUrl: url, get: (h: string) => (h === 'host' ? host : undefined) } as unknown as Request;
}

/** Records what was sent. */
function response() {
  const sent: { headers: Record<string, string>; body?: Buffer } = { headers: {} };
  const res = {
    setHeader: (k: string, v: string) => (sent.headers[k] = v),
    send: (b: Buffer) => (sent.body = b),
  } as unknown as Response;
  return { res, sent };
}

/** A list route whose answer says how many times it was computed (showing `inProgress`, when given, in progress). */
function counter(inProgress?: string[]) {
  let n = 0;
  return { compute: async () => ({ body: { computed: ++n }, inProgress }), count: () => n };
}

type Compute = () => Promise<{ body: unknown; inProgress?: string[] }>;

async function get(cache: ListCache, url: string, compute: Compute, s = scope, host?: string) {
  const { res, sent } = response();
  await cache.send(request(url, host), res, s, compute);
  return { json: JSON.parse(sent.body!.toString()) as unknown, headers: sent.headers };
}

describe('ListCache', () => {
  it('answers the same list from memory until an upsert it predates settles', async () => {
    const { cache, bus } = await started();
    const route = counter();
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
    bus.announce({ projectId: 'other', applied: ['u0'] });
    bus.announce({ projectId: 'other', settled: ['u0'] });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
    // Catalog applies u1, which then settles: the answer computed before the application goes.
    bus.announce({ projectId: 'p1', applied: ['u1'] });
    bus.announce({ projectId: 'p1', settled: ['u1'] });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 2 });
    // One computed after it stays when u1 (or an upsert catalog never changed anything for) settles.
    bus.announce({ projectId: 'p1', settled: ['u1'] });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 2 });
    // An upsert settling whose application was not heard (a delete's rounds) may be in any change: those not shown go.
    bus.announce({ projectId: 'p1' });
    bus.announce({ projectId: 'p1', settled: ['u2'] });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 3 });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 3 });
  });

  it('reuses an answer for LIST_CACHE_PROGRESS_MS at most once catalog changed its project, computing it again behind each request', async () => {
    const { cache, bus } = await started({ LIST_CACHE_PROGRESS_MS: '1000' });
    const now = jest.spyOn(Date, 'now').mockReturnValue(10_000);
    try {
      let n = 0;
      let finish: (() => void) | null = null;
      let hold = false;
      const route = async () => {
        const computed = ++n;
        if (hold) await new Promise<void>((r) => (finish = r));
        return { body: { computed } };
      };
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 1 });
      bus.announce({ projectId: 'p1' }); // catalog applied items of an upsert in progress
      now.mockReturnValue(10_500);
      hold = true;
      // The kept answer, and a computation behind it (held, as a busy catalog would).
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 1 });
      expect(n).toBe(2);
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 1 });
      expect(n).toBe(2);
      // A second after the change, the kept answer is no longer used: the request computes its own.
      now.mockReturnValue(11_000);
      hold = false;
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 3 });
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 3 });
      // The held computation began after the change: kept in its place, as a settled answer would be.
      (finish as unknown as () => void)();
      await new Promise((r) => setImmediate(r));
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 2 });
      now.mockReturnValue(14_000);
      expect((await get(cache, '/v1/items', route)).json).toEqual({ computed: 2 });
    } finally {
      now.mockRestore();
    }
  });

  it('keeps a page showing upserts in progress for LIST_CACHE_PROGRESS_MS from its computation, never once one of them settles', async () => {
    const { cache, bus } = await started({ LIST_CACHE_PROGRESS_MS: '1000' });
    const now = jest.spyOn(Date, 'now').mockReturnValue(10_000);
    const settle = () => new Promise((r) => setImmediate(r));
    try {
      const route = counter(['u1']);
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
      now.mockReturnValue(10_400);
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
      await settle(); // computed again behind it
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 2 });
      await settle();
      // Unused for a second after its computation began, it is computed by the request.
      now.mockReturnValue(11_500);
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 4 });
      // u1 settles: the page goes, and a page computed before its settlement was committed (u1 in progress) is not kept.
      bus.announce({ projectId: 'p1', settled: ['u1'] });
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 5 });
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 6 });
      // Another upsert in progress is kept as before.
      const other = counter(['u2']);
      expect((await get(cache, '/v1/collections', other.compute)).json).toEqual({ computed: 1 });
      expect((await get(cache, '/v1/collections', other.compute)).json).toEqual({ computed: 1 });
      // Once settled for good (its completion committed), its page is kept again.
      now.mockReturnValue(50_000);
      const done = counter();
      expect((await get(cache, '/v1/items?page=2', done.compute)).json).toEqual({ computed: 1 });
      expect((await get(cache, '/v1/items?page=2', done.compute)).json).toEqual({ computed: 1 });
      const late = counter(['u1']);
      await get(cache, '/v1/items?page=3', late.compute);
      await get(cache, '/v1/items?page=3', late.compute);
      await settle();
      expect(late.count()).toBe(2);
    } finally {
      now.mockRestore();
    }
  });

  it('with LIST_CACHE_PROGRESS_MS at 0, drops answers when catalog changes their project and keeps no page in progress', async () => {
    const { cache, bus } = await started({ LIST_CACHE_PROGRESS_MS: '0' });
    const route = counter();
    await get(cache, '/v1/items', route.compute);
    await get(cache, '/v1/items', route.compute);
    bus.announce({ projectId: 'p1' });
    expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 2 });
    const loading = counter(['u1']);
    await get(cache, '/v1/collections', loading.compute);
    await get(cache, '/v1/collections', loading.compute);
    expect(loading.count()).toBe(2);
  });

  it('keeps answers apart by project, tenancy, host and the whole URL', async () => {
    const { cache } = await started();
    const route = counter();
    await get(cache, '/v1/items?page=2', route.compute);
    await get(cache, '/v1/items?page=3', route.compute);
    await get(cache, '/v1/items?page=2', route.compute, { projectId: 'p2', tenancy: 'single' });
    await get(cache, '/v1/items?page=2', route.compute, { projectId: 'p1', tenancy: 'multi' });
    await get(cache, '/v1/items?page=2', route.compute, scope, 'other.example');
    expect(route.count()).toBe(5);
    await get(cache, '/v1/items?page=2', route.compute);
    expect(route.count()).toBe(5);
  });

  it('does not keep an answer computed while an upsert settled that it may predate', async () => {
    const { cache, bus } = await started();
    let n = 0;
    const racing = async () => {
      n++;
      if (n === 1) {
        // u1 applied and settled while the first read is in flight
        bus.announce({ projectId: 'p1', applied: ['u1'] });
        bus.announce({ projectId: 'p1', settled: ['u1'] });
      }
      return { body: { computed: n } };
    };
    expect((await get(cache, '/v1/items', racing)).json).toEqual({ computed: 1 });
    expect((await get(cache, '/v1/items', racing)).json).toEqual({ computed: 2 });
    expect((await get(cache, '/v1/items', racing)).json).toEqual({ computed: 2 });
  });

  it('keeps nothing while the bus is down, and drops everything when it drops and when it comes back', async () => {
    const { cache, bus } = await started();
    const route = counter();
    await get(cache, '/v1/items', route.compute);
    bus.connection!.lost();
    await get(cache, '/v1/items', route.compute);
    await get(cache, '/v1/items', route.compute);
    expect(route.count()).toBe(3);
    await get(cache, '/v1/collections', route.compute);
    bus.connection!.restored();
    expect(cache.size.entries).toBe(0);
    await get(cache, '/v1/items', route.compute);
    await get(cache, '/v1/items', route.compute);
    expect(route.count()).toBe(5);
  });

  it('keeps nothing until it hears announcements, even when a connection comes back', async () => {
    const bus = new FakeBus();
    bus.failSubscribe = true;
    const { cache } = await started({}, bus);
    const route = counter();
    await get(cache, '/v1/items', route.compute);
    bus.connection!.restored();
    await get(cache, '/v1/items', route.compute);
    await get(cache, '/v1/items', route.compute);
    expect(route.count()).toBe(3);
    cache.onApplicationShutdown();
  });

  it('reuses an answer for LIST_CACHE_TTL_MS at most', async () => {
    const { cache } = await started({ LIST_CACHE_TTL_MS: '1000' });
    const etag = weakEtag(Buffer.from('x'));
    cache.put(cache.ticket('p1', 5000), 'k', 'p1', Buffer.from('x'), etag, [], 5000);
    expect(cache.get('k', 5999)?.etag).toBe(etag);
    expect(cache.get('k', 6000)).toBeUndefined();
  });

  it('computes an answer in use again once past half its time, answering with the kept one meanwhile', async () => {
    const { cache, bus } = await started({ LIST_CACHE_TTL_MS: '1000' });
    const route = counter();
    const settle = () => new Promise((r) => setImmediate(r));
    const now = jest.spyOn(Date, 'now').mockReturnValue(10_000);
    try {
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
      now.mockReturnValue(10_400);
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 1 });
      await settle();
      expect(route.count()).toBe(1);
      // Past half its time: the kept answer, and one computation after it for the next request.
      now.mockReturnValue(10_600);
      const answers = await Promise.all([get(cache, '/v1/items', route.compute), get(cache, '/v1/items', route.compute)]);
      expect(answers.map((a) => a.json)).toEqual([{ computed: 1 }, { computed: 1 }]);
      await settle();
      expect(route.count()).toBe(2);
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 2 });

      // A settlement announced while it is computed again: what was computed is not kept.
      let finish!: () => void;
      const slow = async () => {
        await new Promise<void>((r) => (finish = r));
        return { body: { computed: 'before the change' } };
      };
      now.mockReturnValue(11_200);
      await get(cache, '/v1/items', slow);
      bus.announce({ projectId: 'p1', applied: ['u1'] });
      bus.announce({ projectId: 'p1', settled: ['u1'] });
      finish();
      await settle();
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 3 });

      // An answer that may not be kept (it shows an upsert settling in progress) leaves the kept one to expire.
      bus.announce({ projectId: 'p1', settled: ['u9'] });
      now.mockReturnValue(11_800);
      await get(cache, '/v1/items', counter(['u9']).compute);
      await settle();
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 3 });
      // ... and that request had it computed again behind it.
      await settle();
      expect((await get(cache, '/v1/items', route.compute)).json).toEqual({ computed: 4 });
    } finally {
      now.mockRestore();
    }
  });

  it('stays within LIST_CACHE_MAX_BYTES, dropping the least recently used first', async () => {
    const { cache } = await started({ LIST_CACHE_MAX_BYTES: '8000' });
    const body = Buffer.alloc(1000, 'a');
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) cache.put(cache.ticket('p1'), k, 'p1', body, 'e');
    expect(cache.size).toEqual({ entries: 8, bytes: 8000 });
    cache.get('a'); // used: now the newest
    cache.put(cache.ticket('p1'), 'i', 'p1', body, 'e');
    expect(cache.size).toEqual({ entries: 8, bytes: 8000 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    cache.put(cache.ticket('p1'), 'huge', 'p1', Buffer.alloc(1001), 'e'); // over an eighth of the budget: not kept
    expect(cache.get('huge')).toBeUndefined();
  });

  it('is off with LIST_CACHE_MAX_BYTES or LIST_CACHE_TTL_MS at 0', async () => {
    for (const env of [{ LIST_CACHE_MAX_BYTES: '0' }, { LIST_CACHE_TTL_MS: '0' }] as Array<Record<string, string>>) {
      const { cache } = await started(env);
      const route = counter();
      await get(cache, '/v1/items', route.compute);
      await get(cache, '/v1/items', route.compute);
      expect(route.count()).toBe(2);
    }
  });

  it('sends JSON with the ETag Express would give the same body, kept or not', async () => {
    const { cache } = await started();
    const route = counter();
    const first = await get(cache, '/v1/items', route.compute);
    const again = await get(cache, '/v1/items', route.compute);
    const body = Buffer.from(JSON.stringify({ computed: 1 }));
    const expected = `W/"${body.length.toString(16)}-${createHash('sha1').update(body).digest('base64').substring(0, 27)}"`;
    expect(first.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8', ETag: expected });
    expect(again.headers).toEqual(first.headers);
  });
});
