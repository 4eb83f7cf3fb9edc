import type { RequestOptions, Transport } from '../transport.js';
import type { CollectionListParams, DeleteItemByIdParams, ItemListParams } from '../inputs.js';
import type { Collection, Item, Receipt } from '../types.js';
import { data, Listed, seg } from './base.js';

/** Items. A delete is queued with the upserts: its receipt is polled with `upserts.get` or `upserts.wait`. */
export class Items extends Listed<Item, ItemListParams> {
  constructor(http: Transport) {
    super(http, '/items');
  }

  /** By the service-side id. */
  get(id: string, options?: RequestOptions): Promise<Item> {
    return data(this.http, { method: 'GET', path: `/items/${seg(id)}` }, options);
  }

  /** By the service-side id. */
  delete(id: string, options?: RequestOptions): Promise<Receipt> {
    return data(this.http, { method: 'DELETE', path: `/items/${seg(id)}`, keyed: true }, options);
  }

  /** By your id, in a collection (`default` when not given). */
  deleteByItemId(params: DeleteItemByIdParams, options?: RequestOptions): Promise<Receipt> {
    return data(this.http, { method: 'DELETE', path: '/items', query: params, keyed: true }, options);
  }
}

export class Collections extends Listed<Collection, CollectionListParams> {
  constructor(http: Transport) {
    super(http, '/collections');
  }

  get(id: string, options?: RequestOptions): Promise<Collection> {
    return data(this.http, { method: 'GET', path: `/collections/${seg(id)}` }, options);
  }

  /** The collection and all its items (queued, like an upsert). */
  delete(id: string, options?: RequestOptions): Promise<Receipt> {
    return data(this.http, { method: 'DELETE', path: `/collections/${seg(id)}`, keyed: true }, options);
  }
}

export class Tenants {
  constructor(private readonly http: Transport) {}

  /** Everything of one tenant: items, chats and their messages (queued, like an upsert). */
  delete(tenant: number, options?: RequestOptions): Promise<Receipt> {
    return data(this.http, { method: 'DELETE', path: `/tenants/${seg(tenant)}`, keyed: true }, options);
  }
}
