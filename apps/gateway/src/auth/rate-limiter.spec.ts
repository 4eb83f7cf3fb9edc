import { BusClient, loadConfig } from '@askdata/common';
import { gatewaySettings } from '../gateway.config';
import { RateLimiter } from './rate-limiter';

/** Broadcasts between limiters as over NATS: every subscriber hears every message, the sender included. */
class FakeBroadcasts {
  private readonly handlers: Array<(payload: never) => void> = [];
  bus(shared: boolean): BusClient {
    return {
      subscribe: async (_subject: string, handler: (payload: never) => void) => {
        if (!shared) return false;
        this.handlers.push(handler);
        return true;
      },
      publish: async (_subject: string, payload: unknown) => {
        for (const h of this.handlers) h(JSON.parse(JSON.stringify(payload)) as never);
      },
    } as unknown as BusClient;
  }
}

const limiter = (perMinute: string, bus = new FakeBroadcasts().bus(false)) => new RateLimiter(loadConfig(gatewaySettings, { RATE_LIMIT_PER_MINUTE: perMinute }), bus);

describe('RateLimiter', () => {
  it('allows the limit per minute per key, then refuses with Retry-After', () => {
    const rl = limiter('3');
    const t = 1_000_000;
    expect([1, 2, 3].map(() => rl.take('k', t)?.remaining)).toEqual([2, 1, 0]);
    const refused = rl.take('k', t);
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterSeconds: 20 });
    expect(rl.take('other', t)?.allowed).toBe(true);
  });

  it('refills over time', () => {
    const rl = limiter('60');
    const t = 5_000_000;
    for (let i = 0; i < 60; i++) rl.take('k', t);
    expect(rl.take('k', t)?.allowed).toBe(false);
    expect(rl.take('k', t + 1000)?.allowed).toBe(true);
    expect(rl.take('k', t + 1000)?.allowed).toBe(false);
  });

  it('counts a client address of a key apart from the key, at its own limit', () => {
    const rl = new RateLimiter(loadConfig(gatewaySettings, { RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '2' }), new FakeBroadcasts().bus(false));
    const t = 2_000_000;
    expect([1, 2].map(() => rl.takeForAddress('k', '192.0.2.1', t)?.allowed)).toEqual([true, true]);
    expect(rl.takeForAddress('k', '192.0.2.1', t)).toEqual({ allowed: false, limit: 2, remaining: 0, retryAfterSeconds: 30 });
    expect(rl.takeForAddress('k', '192.0.2.2', t)?.allowed).toBe(true);
    expect(rl.takeForAddress('other', '192.0.2.1', t)?.allowed).toBe(true);
    expect(rl.take('k', t)).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
  });

  it('is off at 0', () => {
    expect(limiter('0').take('k')).toBeNull();
  });

  it('shares one limit per key between gateways that report to each other', async () => {
    const net = new FakeBroadcasts();
    const a = limiter('6', net.bus(true));
    const b = limiter('6', net.bus(true));
    await a.onApplicationBootstrap();
    await b.onApplicationBootstrap();
    try {
      const t = Date.now();
      for (let i = 0; i < 3; i++) expect(a.take('k', t)?.allowed).toBe(true);
      for (let i = 0; i < 3; i++) expect(b.take('k', t)?.allowed).toBe(true);
      await a.report();
      await b.report();
      // Six requests reached the two gateways: the key's minute is used up on both.
      expect(a.take('k', t)).toMatchObject({ allowed: false, remaining: 0 });
      expect(b.take('k', t)).toMatchObject({ allowed: false, remaining: 0 });
      expect(a.take('other', t)?.allowed).toBe(true);
    } finally {
      await a.onApplicationShutdown();
      await b.onApplicationShutdown();
    }
  });

  it('shares once the bus can be reached, counting alone until then', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const net = new FakeBroadcasts();
      const down = { reachable: false };
      const flaky = net.bus(true);
      const subscribe = flaky.subscribe.bind(flaky);
      flaky.subscribe = (async (...args: Parameters<BusClient['subscribe']>) => {
        if (!down.reachable) throw new Error('connection refused');
        return subscribe(...args);
      }) as BusClient['subscribe'];
      const a = limiter('4', flaky);
      const b = limiter('4', net.bus(true));
      await a.onApplicationBootstrap();
      await b.onApplicationBootstrap();
      const t = Date.now();
      expect(a.take('k', t)?.allowed).toBe(true);
      down.reachable = true;
      await jest.advanceTimersByTimeAsync(5000);
      const later = Date.now();
      for (let i = 0; i < 3; i++) expect(a.take('k', later)?.allowed).toBe(true);
      await a.report();
      // The three requests a admitted once it could report are b's too; the one before it could is not.
      expect(b.take('k', later)).toMatchObject({ allowed: true, remaining: 0 });
      expect(b.take('k', later)?.allowed).toBe(false);
      await a.onApplicationShutdown();
      await b.onApplicationShutdown();
    } finally {
      jest.useRealTimers();
    }
  });

  it('counts alone when nobody else can hear (standalone)', async () => {
    const rl = limiter('2', new FakeBroadcasts().bus(false));
    await rl.onApplicationBootstrap();
    const t = Date.now();
    expect([rl.take('k', t)?.allowed, rl.take('k', t)?.allowed, rl.take('k', t)?.allowed]).toEqual([true, true, false]);
    await rl.onApplicationShutdown();
  });
});
