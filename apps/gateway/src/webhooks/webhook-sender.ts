import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WakeUp } from '@askdata/common';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { webhookBackoffMs } from './backoff';
import { AttemptOutcome, ClaimedDelivery, DeliveryQueue } from './delivery-queue';
import { SIGNATURE_HEADER, signWebhook } from './signature';

/**
 * Sends due webhook deliveries: up to WEBHOOK_CONCURRENCY at once (each the oldest pending one of its endpoint),
 * each POST signed and bounded by WEBHOOK_TIMEOUT_MS, its end recorded; claims are shared by every gateway through
 * the database. A gateway that dies mid-attempt leaves a lease that runs out, and the delivery is sent again.
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookSender.name);
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly wakeUp = new WakeUp();

  constructor(
    private readonly queue: DeliveryQueue,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming, and lets the attempts under way end (each within WEBHOOK_TIMEOUT_MS). */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  /** New deliveries were stored, or an attempt ended: look for due ones now. */
  kick(): void {
    this.wakeUp.kick();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const room = this.config.WEBHOOK_CONCURRENCY - this.inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (room > 0) {
        claimed = await this.queue.claim(room).catch((e: Error) => {
          this.logger.warn(`cannot claim webhook deliveries: ${e.message}`);
          return [];
        });
      }
      for (const d of claimed) {
        const attempt: Promise<void> = this.attempt(d).finally(() => {
          this.inFlight.delete(attempt);
          this.kick();
        });
        this.inFlight.add(attempt);
      }
      if (claimed.length === 0 || this.inFlight.size >= this.config.WEBHOOK_CONCURRENCY) await this.wakeUp.wait(this.config.WEBHOOK_POLL_MS);
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const outcome = await post(d, this.config.WEBHOOK_TIMEOUT_MS);
    if (!outcome.ok) this.logger.warn(`webhook delivery ${d.id} to endpoint ${d.endpoint_id}, attempt ${d.attempts}, failed: ${outcome.error}`);
    const retryInMs = webhookBackoffMs(d.attempts, this.config.WEBHOOK_BACKOFF_MS, this.config.WEBHOOK_BACKOFF_MAX_MS);
    await this.queue
      .finish(d, outcome, retryInMs)
      .catch((e: Error) => this.logger.warn(`webhook delivery ${d.id}: cannot record the attempt (${e.message}); its lease will expire`));
  }
}

/** One POST of a delivery, signed at the moment it is sent; a redirect is not followed (it is a failure). */
export async function post(d: Pick<ClaimedDelivery, 'url' | 'secret' | 'body' | 'event_id' | 'event_type'>, timeoutMs: number): Promise<AttemptOutcome> {
  try {
    const res = await fetch(d.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'askdata-webhooks/1',
        'Askdata-Event-Id': d.event_id,
        'Askdata-Event-Type': d.event_type,
        [SIGNATURE_HEADER]: signWebhook(d.secret, Math.floor(Date.now() / 1000), d.body),
      },
      body: d.body,
    });
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, error: ok ? null : `HTTP ${res.status}` };
  } catch (e) {
    return { ok: false, statusCode: null, error: describe(e, timeoutMs) };
  }
}

function describe(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}
