import type { ServerResponse } from 'node:http';

/**
 * How a streamed reply misbehaves after `afterDeltas` text deltas: it stops sending and keeps the connection open
 * (`stall`), closes the connection mid-message (`cut`), or sends an `error` event (`error`, an overloaded API) as
 * the Messages API does when it fails after the stream began.
 */
export interface StreamFault {
  kind: 'stall' | 'cut' | 'error';
  afterDeltas: number;
}

/** Characters of text in each `text_delta`. */
const DELTA_CHARS = 6;

interface StreamedMessage {
  id: string;
  model: unknown;
  content: Array<{ type: string; text: string; citations: unknown[] | null }>;
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

/**
 * Writes a message as the streaming Messages API sends it (Server-Sent Events): `message_start` (empty content,
 * no stop reason), a `ping`, then per text block `content_block_start` (empty text), one `citations_delta` per
 * citation, `text_delta`s of a few characters, `content_block_stop`; then `message_delta` (stop reason, output
 * tokens) and `message_stop`. Returns false when it left the connection open on purpose (a stall).
 */
export function writeMessageStream(res: ServerResponse, message: StreamedMessage, fault?: StreamFault): boolean {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${Date.now()}` });
  const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', {
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  send('ping', {});
  let deltas = 0;
  for (const [index, block] of message.content.entries()) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const citation of block.citations ?? []) send('content_block_delta', { index, delta: { type: 'citations_delta', citation } });
    for (let at = 0; at < block.text.length; at += DELTA_CHARS) {
      if (fault && deltas === fault.afterDeltas) return misbehave(res, fault, send);
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text.slice(at, at + DELTA_CHARS) } });
      deltas++;
    }
    send('content_block_stop', { index });
  }
  if (fault) return misbehave(res, fault, send);
  send('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  send('message_stop', {});
  res.end();
  return true;
}

function misbehave(res: ServerResponse, fault: StreamFault, send: (type: string, data: Record<string, unknown>) => void): boolean {
  if (fault.kind === 'stall') return false;
  if (fault.kind === 'cut') {
    res.destroy();
    return true;
  }
  send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
  res.end();
  return true;
}
