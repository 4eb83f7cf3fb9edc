import type { Request, RequestHandler, Response } from 'express';
import helmet, { HelmetOptions } from 'helmet';

/** The API reference page and its assets. */
const DOCS_PATHS = /^\/docs(\/|$)/;
/** The console (its page and assets) and the widget's script. */
const CONSOLE_PATHS = /^\/console(\/|$)/;
const WIDGET_PATH = '/widget.js';

const common: HelmetOptions = {
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  // Sent on every response; browsers heed it only over HTTPS (behind a TLS proxy). The domain's other hosts are not
  // this service's to decide for.
  strictTransportSecurity: { maxAge: 15552000, includeSubDomains: false },
};

/**
 * Protective response headers, from helmet: `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, no referrer,
 * HSTS, cross-origin isolation headers, and a Content-Security-Policy. API responses are data, never a page, so
 * their policy allows nothing. `/docs` (Swagger UI) gets a strict policy that still lets the page work: scripts,
 * styles, images and fonts from this origin only (images and fonts also as data: URLs), requests ("Try it out") to
 * this origin only, no plugins, frames or foreign forms. Swagger UI writes inline styles (the page's style block,
 * style attributes, and style elements its bundle inserts at run time), so styles, and only styles, may be inline;
 * in headless Chromium the page renders every operation with no violation reported.
 */
export function protectiveHeaders(): RequestHandler {
  const api = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
  });
  const docs = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
      },
    },
  });
  // The console: its own scripts and styles only, nothing inline, requests to this origin only.
  const console = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
      },
    },
  });
  // The widget's script is loaded by pages of other origins: it may be read across origins.
  const widget = helmet({ ...common, crossOriginResourcePolicy: { policy: 'cross-origin' }, contentSecurityPolicy: false });
  const [apiHeaders, docsHeaders, consoleHeaders, widgetHeaders] = [api, docs, console, widget].map(headersOf);
  return (req, res, next) => {
    const chosen = DOCS_PATHS.test(req.path) ? docsHeaders : CONSOLE_PATHS.test(req.path) ? consoleHeaders : req.path === WIDGET_PATH ? widgetHeaders : apiHeaders;
    for (const [name, value] of chosen.set) res.setHeader(name, value);
    for (const name of chosen.removed) res.removeHeader(name);
    next();
  };
}

type HeaderValue = string | number | readonly string[];

/**
 * The headers a helmet middleware sets and removes, found once: with these options they are the same for every
 * request, and setting them directly spares each response a dozen middleware calls.
 */
function headersOf(handler: RequestHandler): { set: Array<[string, HeaderValue]>; removed: string[] } {
  const set: Array<[string, HeaderValue]> = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: HeaderValue) => set.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  let done = false;
  let failed = false;
  handler({} as Request, recorder as unknown as Response, (e?: unknown) => {
    failed = Boolean(e);
    done = true;
  });
  if (!done || failed) throw new Error('The protective headers could not be found: helmet did not finish at once, or failed.');
  return { set, removed };
}
