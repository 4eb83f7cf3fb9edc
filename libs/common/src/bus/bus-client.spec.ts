import { ErrorCode, Subjects } from '@askdata/contracts';
import { ClientProxy } from '@nestjs/microservices';
import { BusClient } from './bus-client';
import { ServiceError } from './service-error';

/** A NATS client whose requests are never answered, and whose connection can be dropped. */
function silentNats() {
  const listeners: Array<() => void> = [];
  const subjects: string[] = [];
  const proxy = {
    connect: async () => ({
      request: (subject: string) => {
        subjects.push(subject);
        return new Promise(() => undefined);
      },
    }),
    on: (event: string, callback: () => void) => {
      if (event === 'disconnect') listeners.push(callback);
    },
  } as unknown as ClientProxy;
  return { proxy, subjects, drop: () => listeners.forEach((l) => l()) };
}

describe('BusClient over NATS', () => {
  it('fails a request in flight with UNAVAILABLE as soon as the connection drops, not at its timeout', async () => {
    const nats = silentNats();
    const bus = new BusClient(nats.proxy, { kind: 'nats', url: 'nats://127.0.0.1:1', timeoutMs: 600000 }, 'test');
    await bus.onApplicationBootstrap();
    const pending = bus.request(Subjects.catalog.health, {});
    await new Promise((r) => setImmediate(r));
    nats.drop();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe(ErrorCode.Unavailable);
  });

  it('sends to the subject in the deployment namespace', async () => {
    const nats = silentNats();
    const bus = new BusClient(nats.proxy, { kind: 'nats', url: 'nats://127.0.0.1:1', timeoutMs: 600000, subjectPrefix: 'acme.prod' }, 'test');
    await bus.onApplicationBootstrap();
    void bus.request(Subjects.catalog.health, {}).catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    expect(nats.subjects).toEqual(['acme.prod.catalog.health']);
    nats.drop();
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
