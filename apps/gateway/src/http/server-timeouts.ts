import type { Server } from 'node:http';
import type { GatewayConfig } from '../gateway.config';

/**
 * Bounds what a slow client can hold: the time to send the headers, the time to send the whole request (body
 * included), and an idle keep-alive connection. Past either of the first two Node answers 408 (`answerClientError`)
 * and closes the connection. Node checks those two every `connectionsCheckingInterval` (30 s by default, read when
 * the server starts listening): a quarter of the shorter timeout, at most a second, keeps them close to what is set.
 */
export function boundServerTimeouts(server: Server, config: Pick<GatewayConfig, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'>): void {
  server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS);
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  const check = Math.max(25, Math.min(1000, Math.floor(server.headersTimeout / 4)));
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = check;
}
