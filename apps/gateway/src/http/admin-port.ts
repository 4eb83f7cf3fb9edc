import { INestApplication, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express, Request, RequestHandler } from 'express';
import { expressServer } from './express-server';

/** What the internet may reach: the client API, its reference and the widget's script. */
const PUBLIC_PATHS = /^\/((v1|docs)(\/|$)|widget\.js$)/;
/** What only operators and the cluster reach: the admin API, metrics, health, the console. */
const ADMIN_PATHS = /^\/(admin|metrics|health|console)(\/|$)/;
/** The client API, which the console reaches on the admin port with the admin token (`Askdata-Project`), never a key. */
const CONSOLE_API = /^\/v1(\/|$)/;

/**
 * The gateway's second port (`ADMIN_PORT`): `/admin`, `/metrics` and `/health*` are served there and only there,
 * `/v1` and `/docs` only on `PORT` (but the console's `/v1` requests, with the admin token); anything else is 404 on either. Both ports are one Express application, so a
 * request is told apart by the connection it came on. Without a second port (standalone's default) `PORT` serves
 * everything.
 */
@Injectable()
export class AdminPort implements OnApplicationShutdown {
  private server: Server | null = null;
  private readonly sockets = new WeakSet<Socket>();

  /** Express middleware, ahead of every route: keeps each path to its port. */
  readonly keepPathsToTheirPort: RequestHandler = (req, res, next) => {
    if (!this.server) return next();
    const admin = this.sockets.has(req.socket);
    if ((admin ? ADMIN_PATHS : PUBLIC_PATHS).test(req.path)) return next();
    if (admin && CONSOLE_API.test(req.path) && req.headers['askdata-project'] !== undefined && !req.headers['api-key']) return next();
    res.status(404).json({ message: 'Not found.' });
  };

  /** True when the request came on the port that serves the admin API (either port without a second one). */
  servesAdmin(req: Request): boolean {
    return !this.server || this.sockets.has(req.socket);
  }

  /**
   * Starts serving the admin paths on `port` (0: any free port) with the settings and client-error handling of
   * the application's own server; returns the port.
   */
  async listen(app: INestApplication, port: number, host: string): Promise<number> {
    const main = app.getHttpServer() as Server;
    const server = expressServer(app.getHttpAdapter().getInstance() as Express);
    for (const setting of ['headersTimeout', 'requestTimeout', 'keepAliveTimeout', 'timeout', 'maxHeadersCount'] as const) {
      (server as unknown as Record<string, unknown>)[setting] = main[setting];
    }
    for (const listener of main.listeners('clientError')) server.on('clientError', listener as (...args: unknown[]) => void);
    server.on('connection', (socket: Socket) => this.sockets.add(socket));
    this.server = server; // from now on, PORT serves only the public paths
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(port, host, () => {
        server.off('error', fail);
        ok();
      });
    });
    return (server.address() as AddressInfo).port;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((ok) => {
      server.close(() => ok());
      server.closeIdleConnections();
    });
  }
}
