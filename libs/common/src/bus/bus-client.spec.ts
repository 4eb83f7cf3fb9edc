import { ErrorCode, Subjects } from '@askdata/contracts';
import { ClientProxy } from '@nestjs/microservices';
import { BusClient } from './bus-client';
import { ServiceError } from './service-error';

/** A NATS connection that records what is published, answers only when told to, and can be dropped. */
function fakeNats() {
  const listeners: Array<() => void> = [];
  const sent: Array<{ subject: string; reply: string; body: { pattern: string; data: unknown } }> = [];
  const inboxes: Array<{ subject: string; callback: (err: Error | null, message: unknown) => void }> = [];
  const connection = {
    subscribe: (subject: string, opts: { callback: (err: Error | null, message: unknown) => void }) => inboxes.push({ subject, callback: opts.callback }),
    publish: (subject: string, data: Uint8Array, opts: { reply: string }) => {
      sent.push({ subject, reply: opts.reply, body: JSON.parse(new TextDecoder().decode(data)) as { pattern: string; data: unknown } });
    },
  };
  const proxy = {
    connect: async () => connection,
    on: (event: string, callback: () => void) => {
      if (event === 'disconnect') listeners.push(callback);
    },
  } as unknown as ClientProxy;
  /** Delivers a message on a reply subject, as the server would to the inbox subscribed to (`<inbox>.*`). */
  const deliver = (reply: string, data: Uint8Array, headers?: { hasError: boolean; code: number; description: string }) => {
    const inbox = inboxes.find((i) => i.subject === `${reply.slice(0, reply.lastIndexOf('.'))}.*`);
    inbox?.callback(null, { subject: reply, data, headers });
  };
  const answer = (i: number, response: unknown) => deliver(sent[i].reply, new TextEncoder().encode(JSON.stringify({ err: null, response, isDisposed: true })));
  return { proxy, sent, inboxes, deliver, answer, drop: () => listeners.forEach((l) => l()) };
}

/** A bus client over a fake NATS connection (`fakeNats`), and that connection. */
function natsBus(options: { timeoutMs?: number; subjectPrefix?: string } = {}) {
  const nats = fakeNats();
  const bus = new BusClient(nats.proxy, { kind: 'nats', url: 'nats://127.0.0.1:1', timeoutMs: 600000, ...options }, 'test');
  return { nats, bus };
}

/** Lets the request get as far as being published. */
const published = () => new Promise((r) => setImmediate(r));

describe('BusClient over NATS', () => {
  it('fails a request in flight with UNAVAILABLE as soon as the connection drops, not at its timeout', async () => {
    const { nats, bus } = natsBus();
    await bus.onApplicationBootstrap();
    const pending = bus.request(Subjects.catalog.health, {});
    await published();
    nats.drop();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe(ErrorCode.Unavailable);
  });

  it('sends to the subject in the deployment namespace', async () => {
    const { nats, bus } = natsBus({ subjectPrefix: 'acme.prod' });
    await bus.onApplicationBootstrap();
    void bus.request(Subjects.catalog.health, {}).catch(() => undefined);
    await published();
    expect(nats.sent.map((m) => m.subject)).toEqual(['acme.prod.catalog.health']);
    nats.drop();
  });

  it('gives each request the reply its own token names, whatever order the replies come in', async () => {
    const { nats, bus } = natsBus();
    const first = bus.request(Subjects.catalog.itemsGet, { scope: { projectId: 'p' }, itemId: 'a' } as never);
    const second = bus.request(Subjects.catalog.itemsGet, { scope: { projectId: 'p' }, itemId: 'b' } as never);
    await published();
    expect(nats.sent).toHaveLength(2);
    expect(nats.inboxes).toHaveLength(1);
    expect(nats.sent[0].reply).not.toBe(nats.sent[1].reply);
    nats.answer(1, { id: 'b' });
    nats.answer(0, { id: 'a' });
    // A second reply to an answered request, and one to a token nobody waits for, are dropped.
    nats.answer(0, { id: 'again' });
    nats.deliver(`${nats.sent[0].reply}x`, new TextEncoder().encode('{}'));
    await expect(first).resolves.toEqual({ id: 'a' });
    await expect(second).resolves.toEqual({ id: 'b' });
  });

  it('fails at once with UNAVAILABLE when the server says nobody listens on the subject', async () => {
    const { nats, bus } = natsBus();
    const pending = bus.request(Subjects.catalog.health, {});
    await published();
    nats.deliver(nats.sent[0].reply, new Uint8Array(0), { hasError: true, code: 503, description: 'No Responders' });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe(ErrorCode.Unavailable);
    expect((error as ServiceError).message).toBe('The service behind catalog.health is unavailable.');
  });

  it('gives up with UNAVAILABLE at its deadline, and a reply coming later is dropped', async () => {
    const { nats, bus } = natsBus({ timeoutMs: 20 });
    const pending = bus.request(Subjects.catalog.health, {});
    const error = await pending.catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe(ErrorCode.Unavailable);
    expect((error as ServiceError).message).toBe('The service behind catalog.health did not answer in time.');
    expect(() => nats.answer(0, { status: 'ok' })).not.toThrow();
    // The next request is answered as usual.
    const next = bus.request(Subjects.catalog.health, {});
    await published();
    nats.answer(1, { status: 'ok' });
    await expect(next).resolves.toEqual({ status: 'ok' });
  });

  it('subscribes again after its reply subscription ends, failing what waited on it', async () => {
    const { nats, bus } = natsBus();
    const pending = bus.request(Subjects.catalog.health, {});
    await published();
    nats.inboxes[0].callback(new Error('Permissions Violation for Subscription'), null);
    expect(((await pending.catch((e: unknown) => e)) as ServiceError).code).toBe(ErrorCode.Unavailable);
    const next = bus.request(Subjects.catalog.health, {});
    await published();
    expect(nats.inboxes).toHaveLength(2);
    nats.answer(1, { status: 'ok' });
    await expect(next).resolves.toEqual({ status: 'ok' });
  });

  it('confirms a broadcast by flushing after publishing, so that a later reply cannot overtake it', async () => {
    const calls: string[] = [];
    const proxy = {
      connect: async () => ({
        publish: (subject: string) => calls.push(`publish ${subject}`),
        flush: async () => {
          calls.push('flush');
        },
      }),
    } as unknown as ClientProxy;
    const bus = new BusClient(proxy, { kind: 'nats', url: 'nats://127.0.0.1:1', timeoutMs: 1000, subjectPrefix: 'prod' }, 'test');
    await bus.publish(Subjects.catalog.changed, { projectId: 'p' });
    await bus.publish(Subjects.catalog.changed, { projectId: 'p' }, { confirm: true });
    expect(calls).toEqual(['publish prod.catalog.project.changed.v1', 'publish prod.catalog.project.changed.v1', 'flush']);
  });

  it('tells a watcher when the connection is lost and when it is back', () => {
    const listeners = new Map<string, () => void>();
    const proxy = { on: (event: string, callback: () => void) => listeners.set(event, callback) } as unknown as ClientProxy;
    const bus = new BusClient(proxy, { kind: 'nats', url: 'nats://127.0.0.1:1', timeoutMs: 1000 }, 'test');
    const seen: string[] = [];
    bus.watchConnection({ lost: () => seen.push('lost'), restored: () => seen.push('restored') });
    listeners.get('disconnect')!();
    listeners.get('reconnect')!();
    expect(seen).toEqual(['lost', 'restored']);
  });
});
