import { Paged } from '@askdata/contracts';
import type { Request } from 'express';

export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface Envelope<T> {
  data: T[];
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    links: PageLink[];
    path: string;
    per_page: number;
    to: number | null;
    total: number;
  };
  links: { first: string; last: string; prev: string | null; next: string | null };
}

/** Absolute URL of the request's own route (no query string). */
export function routeUrl(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}${req.path}`.replace(/\/+$/, '');
}

/** Laravel's length-aware paginator: page links with an elided window when there are many pages. */
export function envelope<T>(req: Request, page: number, perPage: number, result: Paged<T>): Envelope<T> {
  const path = routeUrl(req);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) {
    if (k === 'page') continue;
    for (const one of Array.isArray(v) ? v : [v]) if (typeof one === 'string') params.append(k, one);
  }
  const url = (p: number) => {
    const q = new URLSearchParams(params);
    q.set('page', String(p));
    return `${path}?${q.toString()}`;
  };
  const lastPage = Math.max(1, Math.ceil(result.total / perPage));
  const from = result.data.length ? (page - 1) * perPage + 1 : null;
  const to = from === null ? null : from + result.data.length - 1;
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const links: PageLink[] = [{ url: prev, label: '&laquo; Previous', active: false }];
  for (const p of pageWindow(page, lastPage)) {
    links.push(p === null ? { url: null, label: '...', active: false } : { url: url(p), label: String(p), active: p === page });
  }
  links.push({ url: next, label: 'Next &raquo;', active: false });
  return {
    data: result.data,
    meta: { current_page: page, from, last_page: lastPage, links, path, per_page: perPage, to, total: result.total },
    links: { first: url(1), last: url(lastPage), prev, next },
  };
}

/**
 * Page numbers to show, `null` for "...", as Laravel's UrlWindow (8 and later) chooses them: every page when there
 * are fewer than 2 x onEachSide + 8; else the first 2 x onEachSide + 4 pages (near the start), as many of the last
 * ones (near the end), or the first two, onEachSide pages around the current one and the last two.
 */
export function pageWindow(page: number, lastPage: number, onEachSide = 3): Array<number | null> {
  const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
  if (lastPage < onEachSide * 2 + 8) return range(1, lastPage);
  const window = onEachSide + 4;
  if (page <= window) return [...range(1, window + onEachSide), null, lastPage - 1, lastPage];
  if (page > lastPage - window) return [1, 2, null, ...range(lastPage - (window + onEachSide - 1), lastPage)];
  return [1, 2, null, ...range(page - onEachSide, page + onEachSide), null, lastPage - 1, lastPage];
}
