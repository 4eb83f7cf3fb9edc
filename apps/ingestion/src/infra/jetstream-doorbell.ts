import { Logger } from '@nestjs/common';
import { AckPolicy, connect, ConsumerMessages, DeliverPolicy, JetStreamClient, NatsConnection, RetentionPolicy, StorageType, StringCodec, nanos } from 'nats';
import { Subjects } from '@askdata/contracts';
import { natsSubject } from '@askdata/common';
import { Doorbell } from './doorbell';

export const CONSUMER = 'ingestion-workers';

/** The stream of a deployment: `INGESTION_DOORBELL`, or `INGESTION_DOORBELL_<prefix>` in a namespace (dots as `_`). */
export function streamName(subjectPrefix: string): string {
  return subjectPrefix ? `INGESTION_DOORBELL_${subjectPrefix.replace(/\./g, '_')}` : 'INGESTION_DOORBELL';
}

const codec = StringCodec();

/**
 * Distributed mode: rings through a JetStream work-queue stream with one durable pull consumer that every
 * ingestion replica shares, so each ring wakes one worker and survives a restart of NATS or of the workers.
 */
export class JetStreamDoorbell implements Doorbell {
  private readonly logger = new Logger(JetStreamDoorbell.name);
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private messages: ConsumerMessages | null = null;
  private closed = false;

  private readonly stream: string;
  private readonly subject: string;

  constructor(
    private readonly url: string,
    subjectPrefix: string,
  ) {
    this.stream = streamName(subjectPrefix);
    this.subject = natsSubject({ subjectPrefix }, Subjects.ingestion.upsertQueued);
  }

  private async connection(): Promise<{ nc: NatsConnection; js: JetStreamClient }> {
    if (this.nc && this.js) return { nc: this.nc, js: this.js };
    const nc = await connect({ servers: this.url, name: 'ingestion-doorbell', maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    const jsm = await nc.jetstreamManager();
    const stream = {
      name: this.stream,
      subjects: [this.subject],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_age: nanos(24 * 3600 * 1000),
    };
    await jsm.streams.add(stream).catch(async () => jsm.streams.update(this.stream, stream));
    await jsm.consumers
      .add(this.stream, { durable_name: CONSUMER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(30000) })
      .catch(() => undefined);
    this.nc = nc;
    this.js = nc.jetstream();
    return { nc, js: this.js };
  }

  async ring(upsertId: string): Promise<void> {
    try {
      const { js } = await this.connection();
      await js.publish(this.subject, codec.encode(JSON.stringify({ upsertId })), { timeout: 2000 });
    } catch (e) {
      this.logger.warn(`doorbell not rung for ${upsertId} (workers will find it by polling): ${(e as Error).message}`);
    }
  }

  listen(listener: () => void): Promise<void> {
    void this.consumeLoop(listener);
    return Promise.resolve();
  }

  private async consumeLoop(listener: () => void): Promise<void> {
    while (!this.closed) {
      try {
        const { js } = await this.connection();
        const consumer = await js.consumers.get(this.stream, CONSUMER);
        this.messages = await consumer.consume({ max_messages: 64 });
        for await (const m of this.messages) {
          listener();
          m.ack();
        }
      } catch (e) {
        if (!this.closed) this.logger.warn(`doorbell consumer restarting: ${(e as Error).message}`);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.messages?.close().catch(() => undefined);
    await this.nc?.drain().catch(() => undefined);
  }
}
