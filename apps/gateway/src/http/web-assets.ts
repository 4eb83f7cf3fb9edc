import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express } from 'express';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Request, Response } from 'express';

/** Where `npm run build` puts the console and the widget (the `@askdata/web` workspace), or null when absent. */
export function webAssetsDir(): string | null {
  try {
    const dir = join(dirname(require.resolve('@askdata/web/package.json')), 'dist');
    return existsSync(join(dir, 'console', 'index.html')) ? dir : null;
  } catch {
    return null;
  }
}

const notBuilt = (_req: Request, res: Response) => {
  res.status(404).json({ message: 'The console and widget are not built: run npm run build.' });
};

/**
 * Serves the console at `/console` (its assets, and its page for every other path under it, which the page routes
 * itself) and the widget at `/widget.js`, as static files built beforehand; nothing is fetched at run time.
 * The Content-Security-Policy of each is set in protective-headers.ts.
 */
export function mountWebAssets(app: INestApplication): void {
  const http: Express = (app as NestExpressApplication).getHttpAdapter().getInstance();
  const dir = webAssetsDir();
  if (!dir) {
    http.get(['/console', '/console/*path', '/widget.js'], notBuilt);
    return;
  }
  const page = join(dir, 'console', 'index.html');
  const assets = join(dir, 'console', 'assets');
  // Built file names carry a content hash: kept a year. `root` keeps the path inside the folder (403 otherwise).
  http.get('/console/assets/:file', (req: Request, res: Response) => {
    res.sendFile(String(req.params.file), { root: assets, maxAge: '1y', immutable: true, dotfiles: 'deny' }, (err) => {
      if (err && !res.headersSent) res.status(404).json({ message: 'Not found.' });
    });
  });
  http.get(['/console', '/console/*path'], (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(page);
  });
  http.get('/widget.js', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.sendFile(join(dir, 'widget.js'));
  });
}
