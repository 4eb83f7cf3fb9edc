import { randomUUID } from 'node:crypto';
import { Msg, MsgHdrs, NatsConnection, nanos, ObjectStore, StorageType } from 'nats';

/** Names the stored body of a message sent in its place. */
export const LARGE_MESSAGE_HEADER = 'Askdata-Large-Message';
/** Room kept in a message for its headers and the protocol's own line. */
const HEADROOM_BYTES = 8 * 1024;
/** A stored body nobody took (its reader gave up) is dropped after this long. */
const KEEP_MS = 10 * 60 * 1000;

/** The largest message the NATS server of `nc` carries (its `max_payload`, 1 MiB unless configured). */
export function maxPayload(nc: NatsConnection): number {
  return nc.info?.max_payload ?? 1024 * 1024;
}

/**
 * Bus messages larger than the NATS server carries (`max_payload`, 1 MiB unless configured; an upsert may be 10 MiB):
 * the body goes into a JetStream object store of the deployment, and the message carries its name in a header
 * instead; the receiver reads it from there and removes it. Smaller messages go as they are. Used for requests and
 * replies alike, on both sides of the bus.
 */
export class LargeMessages {
  private store: Promise<ObjectStore> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    /** The namespace's subject prefix ('' for none): each deployment has a store of its own. */
    private readonly prefix: string,
  ) {}

  /** What to send for `body`: the body itself, or (the header set) an empty message naming where it was stored. */
  async outgoing(body: Uint8Array, headers: MsgHdrs): Promise<Uint8Array> {
    if (body.length + HEADROOM_BYTES <= maxPayload(this.nc)) return body;
    const name = randomUUID();
    await (await this.objects()).putBlob({ name }, body);
    headers.set(LARGE_MESSAGE_HEADER, name);
    return new Uint8Array(0);
  }

  /** The body of a message received: its own, or the one it names (taken out of the store). */
  async incoming(message: Pick<Msg, 'data' | 'headers'>): Promise<Uint8Array> {
    const name = message.headers?.get(LARGE_MESSAGE_HEADER);
    if (!name) return message.data;
    const store = await this.objects();
    const body = await store.getBlob(name);
    if (!body) throw new Error(`the body of a large bus message (${name}) is no longer stored`);
    void store.delete(name).catch(() => undefined);
    return body;
  }

  private objects(): Promise<ObjectStore> {
    if (!this.store) {
      const bucket = `${this.prefix.replace(/[^A-Za-z0-9_-]/g, '_') || 'askdata'}-bus-bodies`;
      this.store = this.nc
        .jetstream()
        .views.os(bucket, { storage: StorageType.Memory, ttl: nanos(KEEP_MS) })
        .catch((e: unknown) => {
          // Tried again by the next large message.
          this.store = null;
          throw e;
        });
    }
    return this.store;
  }
}
