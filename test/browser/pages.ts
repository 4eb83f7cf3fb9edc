import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A site of its own origin (a port of 127.0.0.1) serving HTML pages by path, and one stylesheet. */
export class Site {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  /**
   * `pages` maps a path to its HTML; `origin`, when given, is the one to take again (its port). Every page gets a strict Content-Security-Policy that allows scripts and requests
   * from the service only, and no inline style: the widget has to work within it.
   */
  static async start(service: string, pages: Record<string, string>, origin?: string): Promise<Site> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/page.css') {
        // The page's own styles, which must not reach inside the widget.
        res.writeHead(200, { 'Content-Type': 'text/css' }).end('button { background: rgb(255, 0, 0); font-family: serif; } body { font-family: serif; }');
        return;
      }
      const html = pages[path];
      if (html === undefined) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      res
        .writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': `default-src 'self'; script-src 'self' ${service}; connect-src ${service}; style-src 'self'; img-src 'self' data:`,
        })
        .end(html);
    });
    const port = origin ? Number(new URL(origin).port) : 0;
    await new Promise<void>((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
    return new Site(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  stop(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

/** A shop's page with the widget on it, configured by `attributes` (data-* of the script tag). */
export function pageWithWidget(service: string, attributes: Record<string, string>): string {
  const attrs = Object.entries(attributes)
    .map(([k, v]) => ` ${k}="${v.replace(/"/g, '&quot;')}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>A shop</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/page.css"></head>
  <body>
    <main><h1>A shop</h1><p>Our products.</p><button id="page-button" type="button">The page's own button</button></main>
    <script src="${service}/widget.js"${attrs}></script>
  </body>
</html>`;
}
