import { createServer, IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, RequestHandler } from 'express';

/**
 * An HTTP server for an Express application whose requests and responses are made with Express's prototypes from
 * the start. Express otherwise changes each request's and response's prototype as it arrives, and in V8 an object
 * whose prototype was changed survives young-generation collections: every request was kept, with everything it
 * referenced, until the next full collection, making each scavenge take milliseconds under load. With the
 * prototypes already Express's, its `Object.setPrototypeOf` changes nothing.
 */
export function expressServer(app: Express): Server {
  return createServer(expressServerOptions(app), app as unknown as RequestListener);
}

function expressServerOptions(app: Express): ServerOptions {
  // Constructors in Node's own function style, so that their instances' prototypes are exactly Express's objects.
  function ExpressRequest(this: IncomingMessage, ...args: ConstructorParameters<typeof IncomingMessage>): void {
    IncomingMessage.apply(this, args);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: ServerResponse, ...args: ConstructorParameters<typeof ServerResponse>): void {
    ServerResponse.apply(this, args);
  }
  ExpressResponse.prototype = app.response;
  return { IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage, ServerResponse: ExpressResponse as unknown as typeof ServerResponse };
}

/** NestJS's Express adapter serving plain HTTP (the gateway's; HTTPS is left to NestJS) through {@link expressServer}. */
export class PrototypedExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions) return super.initHttpServer(options);
    this.httpServer = expressServer(this.getInstance<Express>());
    if (options?.forceCloseConnections) (this as unknown as { trackOpenConnections(): void }).trackOpenConnections();
  }
}

/**
 * Express gives every answer with a body an ETag, a SHA-1 of it, for conditional requests; only a GET or HEAD is
 * asked conditionally, so answers to other methods (a search's, a question's, an upsert's) go without one. The
 * answer's application is one whose ETag setting is off and whose other settings are the application's.
 */
export function etagsForReadsOnly(app: Express): RequestHandler {
  const settings: unknown = Object.create(app.settings as object, { 'etag fn': { value: false } });
  const withoutEtags = Object.create(app, { settings: { value: settings } }) as Express;
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') res.app = withoutEtags;
    next();
  };
}
