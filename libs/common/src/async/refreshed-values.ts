import { outsideRequest } from '../observability/request-context';

interface Kept<V> {
  value: Promise<V>;
  at: number;
  /** The value, once looked up. */
  settled?: { value: V };
  refreshing: boolean;
}

/**
 * Values looked up by key and kept: fresh for `freshMs`; then, up to `usableMs` old, still answered while one lookup
 * outside any request refreshes them, so that a key in use is never looked up in a request's path (standalone, such
 * a lookup waits for the write transaction in progress on the one database session). Older than that, never
 * looked up successfully, or deleted: looked up again while the caller waits. A failed refresh leaves the value as it
 * was, to be refreshed again by the next caller.
 */
export class RefreshedValues<V> {
  private readonly kept = new Map<string, Kept<V>>();

  constructor(
    private readonly freshMs: number,
    private readonly usableMs: number,
    private readonly most = 10_000,
  ) {}

  get(key: string, lookUp: () => Promise<V>, now = Date.now()): Promise<V> {
    const kept = this.kept.get(key);
    if (kept && now - kept.at < this.freshMs) return kept.value;
    if (kept?.settled && now - kept.at < this.usableMs) {
      if (!kept.refreshing) {
        kept.refreshing = true;
        outsideRequest(lookUp).then(
          (value) => {
            if (this.kept.get(key) === kept) this.kept.set(key, { value: Promise.resolve(value), at: Date.now(), settled: { value }, refreshing: false });
          },
          () => (kept.refreshing = false),
        );
      }
      return kept.value;
    }
    const entry: Kept<V> = { value: lookUp(), at: now, refreshing: false };
    entry.value.then(
      (value) => (entry.settled = { value }),
      () => this.kept.get(key) === entry && this.kept.delete(key),
    );
    if (this.kept.size >= this.most) this.kept.clear();
    this.kept.set(key, entry);
    return entry.value;
  }

  /** Forgets a key's value: the next caller waits for a lookup. */
  delete(key: string): void {
    this.kept.delete(key);
  }

  /** The value kept for a key, however old, once looked up. */
  known(key: string): V | undefined {
    return this.kept.get(key)?.settled?.value;
  }
}
