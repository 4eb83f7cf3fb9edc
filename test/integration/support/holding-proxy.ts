import { connect, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (NATS here) that can hold back what the server sends and then cut every
 * connection: a request goes through and is answered, but the answer never reaches the client, whose connection
 * drops. Connections made after the cut go through normally.
 */
export class HoldingProxy {
  private holding = false;
  private readonly pairs = new Set<[Socket, Socket]>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static start(upstreamPort: number): Promise<HoldingProxy> {
    return new Promise((resolve, reject) => {
      let proxy!: HoldingProxy;
      const server = createServer((client) => {
        const upstream = connect(upstreamPort, '127.0.0.1');
        const pair: [Socket, Socket] = [client, upstream];
        proxy.pairs.add(pair);
        client.pipe(upstream);
        // What the server sends goes on unless held; held bytes are dropped with the connection.
        upstream.on('data', (chunk) => {
          if (!proxy.holding) client.write(chunk);
        });
        const close = () => {
          proxy.pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        };
        client.on('close', close).on('error', close);
        upstream.on('close', close).on('error', close);
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        proxy = new HoldingProxy(server, (server.address() as { port: number }).port);
        resolve(proxy);
      });
    });
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** From now on, what the server sends is not passed on. */
  hold(): void {
    this.holding = true;
  }

  /** Drops every connection (and what was held); new connections go through. */
  cut(): void {
    this.holding = false;
    for (const [client, upstream] of [...this.pairs]) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}
