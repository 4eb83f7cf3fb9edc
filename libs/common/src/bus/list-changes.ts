import { Logger } from '@nestjs/common';
import { BroadcastContract, ErrorCode, Subjects } from '@askdata/contracts';
import { BusClient } from './bus-client';
import { ServiceError } from './service-error';

/**
 * Tells every gateway that the project's lists changed (`ListCache`), and waits until the bus has taken it: catalog
 * once a change for upserts in progress is committed and before it answers (with the upsert it `applied`, when it
 * knows it); ingestion, with the upserts' ids in `settled`, before it commits them `completed` or `failed`. If that
 * cannot be said, this throws UNAVAILABLE and the (idempotent) work is done again.
 */
export async function announceListChange(bus: BusClient, projectId: string, change: { applied?: string[]; settled?: string[] } = {}): Promise<void> {
  await bus.publish(Subjects.catalog.changed, { projectId, ...change }, { confirm: true }).catch((e: unknown) => {
    throw new ServiceError(ErrorCode.Unavailable, `The change could not be announced: ${e instanceof Error ? e.message : String(e)}`);
  });
}

/**
 * Hears catalog's announcements of changed lists (`announceListChange`) for what a process keeps of its projects'
 * lists or collections: `heard` each one, `gap` when the bus connection drops and when it comes back (announcements
 * may have been missed). While the bus cannot be reached it tries again every 5 s and says what is off meanwhile
 * (`off`). `trusted()`: announcements are heard, and the connection is up, so what was kept since the last gap is
 * still true.
 */
export class ListChangesHeard {
  private subscribed = false;
  /** The bus connection is up (as far as its events tell). */
  private connected = true;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly logger = new Logger(ListChangesHeard.name);

  constructor(
    private readonly bus: BusClient,
    private readonly off: string,
    private readonly on: { heard(change: BroadcastContract[typeof Subjects.catalog.changed]): void; gap(): void },
  ) {}

  trusted(): boolean {
    return this.subscribed && this.connected;
  }

  async start(): Promise<void> {
    const gap = (connected: boolean) => {
      this.connected = connected;
      this.on.gap();
    };
    this.bus.watchConnection({ lost: () => gap(false), restored: () => gap(true) });
    await this.subscribe();
  }

  private async subscribe(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.bus.subscribe(Subjects.catalog.changed, (change) => this.on.heard(change));
      this.subscribed = true;
    } catch (e) {
      this.logger.warn(`${this.off} until the bus can be reached (${(e as Error).message})`);
      this.retry = setTimeout(() => void this.subscribe(), 5000);
      this.retry.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
  }
}
