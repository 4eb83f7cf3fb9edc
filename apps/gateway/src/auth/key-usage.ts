import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';

const FLUSH_MS = 60_000;

/**
 * When each key was last used, to the minute: the keys that passed the guard are noted in memory and written to
 * `api_keys.last_used_at` once a minute (and before the keys are listed here, and at shutdown), so that a request
 * costs no write. A key's time moves only when it is a minute old, so each flush writes at most once a key.
 */
@Injectable()
export class KeyUsage implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(KeyUsage.name);
  private seenKeys = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ds: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.flush().catch((e: Error) => this.logger.warn(`last use of keys not recorded: ${e.message}`)), FLUSH_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush().catch((e: Error) => this.logger.warn(`last use of keys not recorded: ${e.message}`));
  }

  seen(keyId: string): void {
    if (this.seenKeys.size < 100_000) this.seenKeys.add(keyId);
  }

  async flush(): Promise<void> {
    if (!this.seenKeys.size) return;
    const ids = [...this.seenKeys];
    this.seenKeys = new Set();
    await this.ds.query(
      `UPDATE gateway.api_keys SET last_used_at = now()
        WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [ids],
    );
  }
}
