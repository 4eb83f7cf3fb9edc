import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestContext {
  requestId: string;
  /** When the caller stops waiting for this request's answer (epoch milliseconds), if it said. */
  deadline?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const REQUEST_ID_HEADER = 'x-request-id';
/**
 * The absolute deadline of a bus request, in epoch milliseconds: when the caller answers its own caller without
 * this reply. Set by the bus client, read by the receiving service, forwarded by its own bus requests.
 */
export const DEADLINE_HEADER = 'x-deadline';
const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, else a fresh one. */
export function requestIdFrom(header: unknown): string {
  return typeof header === 'string' && VALID_ID.test(header) ? header : randomUUID();
}

/** A deadline header as sent by the bus client (epoch milliseconds), or undefined when absent or malformed. */
export function deadlineFrom(header: unknown): number | undefined {
  if (typeof header !== 'string' || !/^\d{1,15}$/.test(header)) return undefined;
  return Number(header);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The deadline of the bus request being handled (epoch milliseconds), if its caller set one. */
export function currentDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Runs `fn` outside any request: background work started while handling one (a rebuild a request asked for) is
 * not bound by its deadline, nor logged under its id.
 */
export function outsideRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}
