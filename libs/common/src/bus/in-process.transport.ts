import { ClientProxy, CustomTransportStrategy, MsPattern, NatsContext, NatsRecord, ReadPacket, Server, WritePacket } from '@nestjs/microservices';
import type { MsgHdrs } from 'nats';
import { isObservable, lastValueFrom, Observable, of, throwError } from 'rxjs';
import type { BusHandlers } from './bus-handlers';
import { jsonCopy } from './json-copy';

type Handle = (data: unknown, headers: MsgHdrs | undefined, pattern: string) => Promise<Observable<unknown>>;

/**
 * The in-process bus of standalone mode: the same @MessagePattern/@EventPattern handlers as over NATS, with
 * payloads copied exactly as they would be serialized on the wire and read back (`jsonCopy`), so no object passes
 * by reference.
 */
class Registry {
  readonly requests = new Map<string, Handle>();
  readonly events = new Map<string, Handle[]>();
  readonly broadcasts = new Map<string, Set<(payload: unknown) => void>>();
}
const registry = new Registry();

/** A payload as the other side of the wire would read it (`jsonCopy`: as through JSON, its strings shared). */
const wire = <T>(value: T): T => jsonCopy(value);

/**
 * A broadcast in-process: every listener of the subject hears a copy of the payload before this returns, so what
 * the sender does next (answer a request, say) happens after every listener has reacted. A listener that throws
 * is not the sender's failure; it is given to `onError`.
 */
export function inProcessBroadcast(subject: string, payload: unknown, onError: (e: unknown) => void): void {
  for (const listener of registry.broadcasts.get(subject) ?? []) {
    try {
      listener(wire(payload));
    } catch (e) {
      onError(e);
    }
  }
}

/** Hears the in-process broadcasts of a subject until the returned function is called. */
export function inProcessListen(subject: string, listener: (payload: unknown) => void): () => void {
  const listeners = registry.broadcasts.get(subject) ?? new Set();
  listeners.add(listener);
  registry.broadcasts.set(subject, listeners);
  return () => listeners.delete(listener);
}

/** Headers travel beside the payload, as NATS headers do; the payload is copied as if serialized. */
function unwrapRecord(value: unknown): { data: unknown; headers: MsgHdrs | undefined } {
  if (value instanceof NatsRecord) return { data: wire(value.data), headers: value.headers as MsgHdrs | undefined };
  return { data: wire(value), headers: undefined };
}

/** The requests of `handlers` are answered by them ({@link BusHandlers.handle}), the rest through the framework. */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly registered: Array<() => void> = [];

  constructor(private readonly handlers?: BusHandlers) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const direct = !handler.isEventHandler && this.handlers?.has(pattern) ? this.handlers : undefined;
      const handle: Handle = direct
        ? async (data, headers, subject) => {
            const reply = await direct.handle(subject, data, headers);
            return 'err' in reply ? throwError(() => reply.err) : of(reply.response);
          }
        : async (data, headers, subject) => this.transformToObservable(await handler(data, new NatsContext([subject, headers])));
      if (handler.isEventHandler) {
        const list = registry.events.get(pattern) ?? [];
        list.push(handle);
        registry.events.set(pattern, list);
        this.registered.push(() =>
          registry.events.set(
            pattern,
            (registry.events.get(pattern) ?? []).filter((h) => h !== handle),
          ),
        );
      } else {
        registry.requests.set(pattern, handle);
        this.registered.push(() => registry.requests.get(pattern) === handle && registry.requests.delete(pattern));
      }
    }
    callback();
  }

  close(): void {
    this.registered.splice(0).forEach((undo) => undo());
  }

  on(): void {
    /* no connection events in-process */
  }

  unwrap<T>(): T {
    return registry as T;
  }
}

export class InProcessClient extends ClientProxy {
  connect(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    /* nothing to close */
  }

  unwrap<T>(): T {
    return registry as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const pattern = this.normalizePattern(packet.pattern as MsPattern);
    const handle = registry.requests.get(pattern);
    let disposed = false;
    if (!handle) {
      setImmediate(() => callback({ err: { code: 'UNAVAILABLE', message: `No service answers ${pattern}.` }, isDisposed: true }));
      return () => undefined;
    }
    const { data, headers } = unwrapRecord(packet.data);
    setImmediate(() => {
      handle(data, headers, pattern)
        .then((response$) => {
          const sub = response$.subscribe({
            next: (response) => !disposed && callback({ response: wire(response) }),
            error: (err: unknown) => !disposed && callback({ err: wire(err), isDisposed: true }),
            complete: () => !disposed && callback({ isDisposed: true }),
          });
          return sub;
        })
        .catch((err: unknown) => !disposed && callback({ err: wire(err), isDisposed: true }));
    });
    return () => {
      disposed = true;
    };
  }

  protected dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const pattern = this.normalizePattern(packet.pattern as MsPattern);
    const { data, headers } = unwrapRecord(packet.data);
    for (const handle of registry.events.get(pattern) ?? []) {
      setImmediate(() => {
        handle(data, headers, pattern)
          .then((r) => (isObservable(r) ? lastValueFrom(r, { defaultValue: undefined }) : r))
          .catch(() => undefined);
      });
    }
    return Promise.resolve(undefined as T);
  }
}
