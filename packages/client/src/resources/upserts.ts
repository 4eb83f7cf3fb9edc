import { TimeoutError } from '../errors.js';
import { sleep } from '../sleep.js';
import type { RequestOptions, Transport } from '../transport.js';
import type { CreateUpsertInput, UpsertListParams } from '../inputs.js';
import type { Receipt, Upsert } from '../types.js';
import { data, Listed, seg } from './base.js';

export interface WaitOptions {
  /** Between polls; default 500. */
  intervalMs?: number;
  /** Longest wait; default 120000. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Upserts (and deletes, which are queued and polled like them). */
export class Upserts extends Listed<Upsert, UpsertListParams> {
  constructor(http: Transport) {
    super(http, '/upserts');
  }

  /** Queues a batch of items; poll the receipt's `id` (or `wait` for it). */
  create(input: CreateUpsertInput, options?: RequestOptions): Promise<Receipt> {
    return data(this.http, { method: 'POST', path: '/upserts', body: input, keyed: true }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Upsert> {
    return data(this.http, { method: 'GET', path: `/upserts/${seg(id)}` }, options);
  }

  /** Polls until the upsert is `completed` or `failed` (see its `error`) and returns it. */
  async wait(id: string, options: WaitOptions = {}): Promise<Upsert> {
    const intervalMs = options.intervalMs ?? 500;
    const timeoutMs = options.timeoutMs ?? 120_000;
    const until = Date.now() + timeoutMs;
    for (;;) {
      const upsert = await this.get(id, { signal: options.signal, timeoutMs: Math.max(1, until - Date.now()) });
      if (upsert.status === 'completed' || upsert.status === 'failed') return upsert;
      if (Date.now() + intervalMs >= until) throw new TimeoutError(`upsert ${id} was still ${upsert.status} after ${timeoutMs} ms`);
      await sleep(intervalMs, options.signal);
    }
  }
}
