/** One Server-Sent Event as a client reads it. */
export interface SseEvent {
  event: string;
  data: any;
}

export interface SseResponse {
  status: number;
  headers: Headers;
  /** The events in order (empty when the answer was not a stream). */
  events: SseEvent[];
  /** The body as JSON when the answer was not a stream. */
  body: any;
}

/** Parses a text/event-stream body: `event:` and `data:` lines, events separated by a blank line, comments skipped. */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length) out.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return out;
}

/** POSTs a question and reads its whole answer, streamed or not. */
export async function postStream(url: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<SseResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Api-Key': key, 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const streamed = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  return { status: res.status, headers: res.headers, events: streamed ? parseSse(text) : [], body: streamed ? null : JSON.parse(text) };
}
