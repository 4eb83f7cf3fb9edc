import { Injectable } from '@nestjs/common';

const TTL_MS = 30_000;
const MAX_ENTRIES = 50_000;

/**
 * Hashes of API keys the database did not know, for 30 s: the same wrong key presented again costs no lookup.
 * A hash here can only become a key if a new key's 256 random bits were guessed first, so nothing invalidates it.
 */
@Injectable()
export class UnknownKeys {
  private readonly entries = new Map<string, number>();

  has(hash: string, now = Date.now()): boolean {
    const until = this.entries.get(hash);
    if (until === undefined) return false;
    if (until > now) return true;
    this.entries.delete(hash);
    return false;
  }

  add(hash: string, now = Date.now()): void {
    this.entries.delete(hash);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, now + TTL_MS);
  }
}
