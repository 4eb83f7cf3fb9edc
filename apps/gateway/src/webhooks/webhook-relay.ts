import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Subjects } from '@askdata/contracts';
import { BusClient, queryRows } from '@askdata/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { DeliveryQueue, PRUNE_BATCH } from './delivery-queue';
import { WebhookSender } from './webhook-sender';

/** The services that write webhook events, each to an outbox in its own schema. */
const SOURCES = [
  { name: 'ingestion', read: Subjects.ingestion.outboxRead, ack: Subjects.ingestion.outboxAck },
  { name: 'conversation', read: Subjects.conversation.outboxRead, ack: Subjects.conversation.outboxAck },
] as const;

/** Events read per request, and about the most bytes of them. */
const READ_EVENTS = 200;
const READ_BYTES = 1024 * 1024;
/** Reads per source per round, so one busy source does not hold up the other. */
const READS_PER_ROUND = 10;
const PRUNE_EVERY_MS = 60000;
/** Prunes at most this many times a turn, so that one turn stays bounded. */
const PRUNE_ROUNDS = 20;

/**
 * Moves webhook events from the services' outboxes to the gateway's deliveries: every WEBHOOK_POLL_MS, the gateway
 * holding a source's lease reads its oldest events over the bus, stores a delivery per subscribed endpoint, and
 * then acknowledges them, which deletes them there. One gateway at a time relays a source, in the order its events
 * were written. A gateway that dies before acknowledging leaves them in the outbox, read again later and stored
 * once (by event id). The lease holder also trims the delivery logs.
 */
@Injectable()
export class WebhookRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookRelay.name);
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private prunedAt = 0;

  constructor(
    private readonly ds: DataSource,
    private readonly bus: BusClient,
    private readonly queue: DeliveryQueue,
    private readonly sender: WebhookSender,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    const tick = () => {
      this.round = this.relay().finally(() => {
        if (this.timer) this.timer = setTimeout(tick, this.config.WEBHOOK_POLL_MS);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.round;
  }

  /** One round: each source whose lease this gateway holds, relayed until its outbox is empty (or READS_PER_ROUND reads). */
  async relay(): Promise<void> {
    for (const source of SOURCES) {
      try {
        if (!(await this.lease(source.name))) continue;
        for (let n = 0; n < READS_PER_ROUND; n++) {
          const { events } = await this.bus.request(source.read, { limit: READ_EVENTS, maxBytes: READ_BYTES });
          if (events.length === 0) break;
          if ((await this.queue.store(events)) > 0) this.sender.kick();
          await this.bus.request(source.ack, { ids: events.map((e) => e.id) });
          if (events.length < READ_EVENTS) break;
        }
        if (source === SOURCES[0] && Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
          this.prunedAt = Date.now();
          // Until the logs are back within their bound (a busy minute may finish more than one call deletes).
          for (let round = 0; round < PRUNE_ROUNDS && (await this.queue.prune()) === PRUNE_BATCH; round++);
        }
      } catch (e) {
        this.logger.warn(`cannot relay the webhook events of ${source.name}: ${(e as Error).message}`);
      }
    }
  }

  /** Takes or renews this gateway's lease on relaying `source`; false while another gateway holds it. */
  private async lease(source: string): Promise<boolean> {
    const rows = await queryRows<{ source: string }>(
      this.ds,
      `INSERT INTO gateway.webhook_relays (source, owner, lease_until)
       VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
       ON CONFLICT (source) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
        WHERE webhook_relays.owner = EXCLUDED.owner OR webhook_relays.lease_until < now()
       RETURNING source`,
      [source, this.owner, 5 * this.config.WEBHOOK_POLL_MS + 10000],
    );
    return rows.length > 0;
  }
}
