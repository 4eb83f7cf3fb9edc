import { ErrorCode } from '@askdata/contracts';
import { currentDeadline } from '../observability/request-context';
import { ServiceError } from './service-error';

/**
 * Milliseconds left before the caller of the bus request being handled stops waiting (Infinity when it set no
 * deadline, as outside a bus handler).
 */
export function timeLeft(now = Date.now()): number {
  const deadline = currentDeadline();
  return deadline === undefined ? Infinity : deadline - now;
}

/** UNAVAILABLE: the caller has been answered (or is about to be) without this work. */
export function pastDeadline(what: string): ServiceError {
  return new ServiceError(ErrorCode.Unavailable, `The request ran out of time before ${what}. Nothing was stored.`);
}

/**
 * Throws {@link pastDeadline} unless more than `reserveMs` are left: what follows (a write, its reply) would reach
 * a caller that has already been answered.
 */
export function assertTimeLeft(reserveMs: number, what: string): void {
  if (timeLeft() <= reserveMs) throw pastDeadline(what);
}
