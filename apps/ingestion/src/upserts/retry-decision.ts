import { ErrorCode } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { IngestionConfig } from '../ingestion.config';

/** What is known of an upsert when one of its attempts fails. */
export interface AttemptRecord {
  /** Attempts so far, this one included. */
  attempts: number;
  /** Of those before this one, the attempts that failed because a service was unavailable. */
  outageAttempts: number;
  /** When the first of those failed, if any did. */
  outageSince: Date | null;
}

export interface RetryDecision {
  /** The upsert is `failed` (no attempt left), or stays `processing` until `delayMs` from now. */
  final: boolean;
  delayMs: number;
  /** The attempt failed because a service was unavailable, and does not count against UPSERT_MAX_ATTEMPTS. */
  outage: boolean;
}

type RetrySettings = Pick<IngestionConfig, 'UPSERT_MAX_ATTEMPTS' | 'UPSERT_RETRY_BACKOFF_MS' | 'UPSERT_OUTAGE_RETRY_MS' | 'UPSERT_OUTAGE_BACKOFF_MAX_MS'>;

/** A service (the bus, a service behind it, its database) did not answer: nothing is wrong with the data. */
export function isOutage(e: unknown): boolean {
  return e instanceof ServiceError && e.code === ErrorCode.Unavailable;
}

/**
 * After a failed attempt: an outage is retried with a backoff doubling from UPSERT_RETRY_BACKOFF_MS up to
 * UPSERT_OUTAGE_BACKOFF_MAX_MS, for UPSERT_OUTAGE_RETRY_MS after the first attempt it failed, without counting
 * against UPSERT_MAX_ATTEMPTS. Any other failure (the data rejected, an unexpected error), and an outage that lasts
 * longer than that, counts as an attempt: it is retried after UPSERT_RETRY_BACKOFF_MS times the attempts counted,
 * and is final once they reach UPSERT_MAX_ATTEMPTS.
 */
export function retryDecision(e: unknown, record: AttemptRecord, config: RetrySettings, now = Date.now()): RetryDecision {
  const since = record.outageSince?.getTime() ?? now;
  if (isOutage(e) && now - since < config.UPSERT_OUTAGE_RETRY_MS) {
    const doubled = config.UPSERT_RETRY_BACKOFF_MS * 2 ** Math.min(record.outageAttempts, 30);
    return { final: false, outage: true, delayMs: Math.min(doubled, config.UPSERT_OUTAGE_BACKOFF_MAX_MS) };
  }
  const counted = record.attempts - record.outageAttempts;
  return { final: counted >= config.UPSERT_MAX_ATTEMPTS, outage: false, delayMs: config.UPSERT_RETRY_BACKOFF_MS * counted };
}
