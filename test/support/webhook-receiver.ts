import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** A webhook delivery as a receiver saw it. */
export interface Received {
  headers: IncomingMessage['headers'];
  raw: string;
  body: { id: string; type: string; created_at: string; project: string; resource: string; data: any };
  /** What the receiver answered (the status), or `hang` for a request it never answered. */
  answer: number | 'hang';
}

/** How to answer a request: a status, or `hang` (never answer). */
export type Answer = number | 'hang';

/**
 * A real HTTP server on the loopback address that records every webhook request it gets and answers each as
 * `answer` says (200 unless told otherwise). Hung requests are ended when it closes.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (r: Omit<Received, 'answer'>) => Answer = () => 200;
  private readonly hung: ServerResponse[] = [];
  private server!: Server;
  url = '';

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const seen = { headers: req.headers, raw, body: JSON.parse(raw) as Received['body'] };
        const answer = this.answer(seen);
        this.received.push({ ...seen, answer });
        if (answer === 'hang') this.hung.push(res);
        else res.writeHead(answer, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** The deliveries answered 2xx, in the order received. */
  delivered(): Received[] {
    return this.received.filter((r) => typeof r.answer === 'number' && r.answer < 300);
  }

  /** Waits (bounded) until `done` holds of what was received. */
  async until(done: (r: Received[]) => boolean, ms = 30000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    while (!done(this.received)) {
      if (Date.now() > deadline)
        throw new Error(`the receiver did not get what was awaited in ${ms} ms; it got: ${this.received.map((r) => `${r.body.type}:${r.answer}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.received;
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Verifies `Askdata-Signature` as docs/api.md tells receivers to (constant-time compare, 5-minute tolerance). */
export function signatureValid(secret: string, header: string | string[] | undefined, raw: string, toleranceSeconds = 300): boolean {
  if (typeof header !== 'string') return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2)));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'));
}
