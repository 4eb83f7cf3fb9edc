import type { NextFunction, Request, Response } from 'express';
import { isOrigin } from './key-kinds';

/** The header a publishable key's session token travels in. */
export const SESSION_HEADER = 'askdata-session';
const ALLOWED_HEADERS = 'Api-Key, Askdata-Session, Content-Type, Accept, Idempotency-Key, X-Request-Id';
const EXPOSED_HEADERS = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id, Idempotent-Replayed';

/**
 * Answers a browser's preflight (`OPTIONS` with `Access-Control-Request-Method`) of a /v1 route: 204, allowing any
 * well-formed origin to send GET and POST with the API's headers, never with credentials (cookies are not used).
 * A preflight carries no key, so it cannot know whose page asks; the actual request is where the origin is
 * enforced: a publishable key answers only its own origins (403 otherwise), and only its answers allow the origin
 * to read them (`allowOrigin`). Secret keys' answers never carry CORS headers.
 */
export function preflight(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'OPTIONS' || !req.path.startsWith('/v1/') || req.headers['access-control-request-method'] === undefined) return next();
  const origin = req.headers.origin;
  res.setHeader('Vary', 'Origin');
  if (isOrigin(origin)) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
  }
  res.status(204).end();
}

/** Lets the page of `origin` read this answer (a publishable key's request from one of its origins). */
export function allowOrigin(res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}
