import type { Duplex } from 'node:stream';

const REFUSALS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request line and headers are larger than the server accepts.'],
  HPE_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time.'],
  // Past HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS (server-timeouts.ts).
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time.'],
};
const MALFORMED: [number, string, string] = [400, 'Bad Request', 'The request could not be parsed.'];

/**
 * Answers what Node's HTTP parser refuses before any handler runs (a URL or headers over its size limit, a
 * malformed request) in the API's `{message}` shape, instead of Node's bare status line. Listener of the server's
 * `clientError` event.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = REFUSALS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
