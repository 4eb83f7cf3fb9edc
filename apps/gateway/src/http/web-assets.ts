import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express } from 'express';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Request, Response } from 'express';

/**
 * Where `npm run build` puts the console and the widget (the `@askdata/web` workspace builds into the service's
 * `dist/web`, which the container image copies with the rest), or null when they are not built.
 */
export function webAssetsDir(): string | null {
  // Compiled: dist/apps/gateway/src/http; from the sources (tests): apps/gateway/src/http.
  const candidates = [resolve(__dirname, '..', '..', '..', '..', 'web'), resolve(__dirname, '..', '..', '..', '..', 'dist', 'web')];
  return candidates.find((dir) => existsSync(join(dir, 'console', 'index.html'))) ?? null;
}

const notBuilt = (_req: Request, res: Response) => {
  res.status(404).json({ message: 'The console and widget are not built: run npm run build.' });
};

/** Sends a built file; one gone since start (a rebuild under way) is 404 in words, never a 500. */
function send(res: Response, file: string, options: { root?: string; maxAge?: string; immutable?: boolean } = {}): void {
  res.sendFile(file, { ...options, dotfiles: 'deny' }, (err) => {
    if (err && !res.headersSent) res.status(404).json({ message: 'Not found.' });
  });
}

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
    send(res, String(req.params.file), { root: assets, maxAge: '1y', immutable: true });
  });
  http.get(['/console', '/console/*path'], (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    send(res, page);
  });
  http.get('/widget.js', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    send(res, join(dir, 'widget.js'));
  });
}
