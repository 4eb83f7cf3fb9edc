import type { RequestOptions, Transport } from '../transport.js';
import type { SessionInput } from '../inputs.js';
import type { Session } from '../types.js';
import { data } from './base.js';

/** Sessions for browsers: opened on your server with the secret key, used by the page with a publishable key. */
export class Sessions {
  constructor(private readonly http: Transport) {}

  /**
   * A token binding a browser's questions to a tenant, a user and collections, for the page's client
   * (`new AskdataClient({apiKey: 'pk_...', sessionToken: token})`). Minting one changes nothing in the service, so
   * it is retried like a read, without an Idempotency-Key (no token is kept among the stored answers).
   */
  create(input: SessionInput = {}, options?: RequestOptions): Promise<Session> {
    return data(this.http, { method: 'POST', path: '/sessions', body: input, safe: true }, options);
  }
}
