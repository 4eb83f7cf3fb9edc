import { paginate } from '../pages.js';
import type { Call, RequestOptions, Transport } from '../transport.js';
import type { PageParams } from '../inputs.js';
import type { Page } from '../types.js';

/** Encodes an id for a path segment. */
export const seg = (id: string | number): string => encodeURIComponent(String(id));

/** The `data` member of a JSON answer. */
export async function data<T>(http: Transport, call: Call, options?: RequestOptions): Promise<T> {
  return (await http.json<{ data: T }>(call, options)).data;
}

/** A resource with a list: one page of it, or all of it. */
export abstract class Listed<T, P extends PageParams> {
  constructor(
    protected readonly http: Transport,
    private readonly listPath: string,
  ) {}

  /** One page, newest first. */
  list(params: P = {} as P, options?: RequestOptions): Promise<Page<T>> {
    return this.http.json({ method: 'GET', path: this.listPath, query: params }, options);
  }

  /** Every element, newest first, page after page. */
  iterate(params: P = {} as P, options?: RequestOptions): AsyncGenerator<T, void, undefined> {
    return paginate((p) => this.list(p, options), params);
  }
}
