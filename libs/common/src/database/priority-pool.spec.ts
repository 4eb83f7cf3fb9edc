import { backgroundShare, ConnectionGate, inBackground, inForeground, isBackground } from './priority-pool';

const tick = () => new Promise((r) => setImmediate(r));

describe('ConnectionGate', () => {
  it('gives a freed connection to a waiting read before bulk work that waited longer', async () => {
    const gate = new ConnectionGate(1, 1);
    const order: string[] = [];
    const first = await gate.acquire(true);
    const write = gate.acquire(true).then((release) => (order.push('write'), release));
    const read = gate.acquire(false).then((release) => (order.push('read'), release));
    await tick();
    expect(order).toEqual([]);
    first();
    (await read)();
    (await write)();
    expect(order).toEqual(['read', 'write']);
  });

  it('keeps the reserved connections for reads: bulk work waits at its share while reads still get one', async () => {
    const gate = new ConnectionGate(3, backgroundShare(3, 2));
    const held = await gate.acquire(true);
    let second = false;
    const pending = gate.acquire(true).then((release) => ((second = true), release));
    const reads = await Promise.all([gate.acquire(false), gate.acquire(false)]);
    await tick();
    expect(second).toBe(false);
    expect(gate.waiting).toEqual({ reads: 0, background: 1 });
    held();
    (await pending)();
    expect(second).toBe(true);
    reads.forEach((release) => release());
  });

  it('lets bulk work that has waited its patience go ahead of reads, so a stream of reads cannot starve it', async () => {
    const gate = new ConnectionGate(1, 1, 30);
    const order: string[] = [];
    let release = await gate.acquire(false);
    const write = gate.acquire(true).then((r) => (order.push('write'), r));
    await new Promise((r) => setTimeout(r, 40));
    const read = gate.acquire(false).then((r) => (order.push('read'), r));
    release();
    release = await write;
    release();
    (await read)();
    expect(order).toEqual(['write', 'read']);
  });

  it('serves a read before bulk work that waited its patience behind other bulk work only', async () => {
    const gate = new ConnectionGate(1, 1, 30);
    const order: string[] = [];
    const first = await gate.acquire(true);
    const write = gate.acquire(true).then((r) => (order.push('write'), r));
    await new Promise((r) => setTimeout(r, 40));
    const read = gate.acquire(false).then((r) => (order.push('read'), r));
    first();
    (await read)();
    (await write)();
    expect(order).toEqual(['read', 'write']);
  });

  it('rejects a caller still waiting after its timeout, as the pool does, and serves the next in line', async () => {
    const gate = new ConnectionGate(1, 1);
    const held = await gate.acquire(false);
    const late = gate.acquire(false, 20);
    const next = gate.acquire(true);
    await expect(late).rejects.toThrow('timeout exceeded when trying to connect');
    expect(gate.waiting).toEqual({ reads: 0, background: 1 });
    held();
    (await next)();
  });

  it('counts a connection given back twice once', async () => {
    const gate = new ConnectionGate(1, 1);
    const release = await gate.acquire(false);
    release();
    release();
    const a = await gate.acquire(false);
    let b = false;
    void gate.acquire(false).then(() => (b = true));
    await tick();
    expect(b).toBe(false);
    a();
  });
});

describe('backgroundShare', () => {
  it('leaves bulk work one connection at least', () => {
    expect(backgroundShare(10, 2)).toBe(8);
    expect(backgroundShare(1, 2)).toBe(1);
  });
});

describe('inBackground', () => {
  it('marks what it runs and what that awaits; inForeground undoes it', async () => {
    expect(isBackground()).toBe(false);
    await inBackground(async () => {
      await tick();
      expect(isBackground()).toBe(true);
      expect(inForeground(() => isBackground())).toBe(false);
    });
    expect(isBackground()).toBe(false);
  });
});
