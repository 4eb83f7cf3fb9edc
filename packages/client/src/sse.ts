/** One Server-Sent Event as read from the wire: its name (`message` when it has none) and its data lines joined. */
export interface RawEvent {
  event: string;
  data: string;
}

/**
 * The events of a `text/event-stream` body, as the HTML standard parses them: lines end with CRLF, LF or CR (also
 * split across chunks), a blank line ends an event, `:` lines are comments, `data` lines are joined with LF, and an
 * event without data is dropped. Reads with a reader, which every platform's ReadableStream has.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  let event = '';
  let data: string[] = [];
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      ended = done;
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const line of lines.push(text, done)) {
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (done) return;
    }
  } finally {
    // Reached when the consumer stops early too: cancelling the body closes the connection, which stops the answer.
    // A body read to its end is not cancelled (a browser would report the request as aborted).
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Splits text that arrives in pieces into lines, a CR at the end of one piece waiting for a possible LF. */
class LineSplitter {
  private rest = '';

  push(text: string, end: boolean): string[] {
    const all = this.rest + text;
    const lines: string[] = [];
    let start = 0;
    for (let i = 0; i < all.length; i++) {
      const c = all[i];
      if (c !== '\n' && c !== '\r') continue;
      if (c === '\r' && i === all.length - 1 && !end) break;
      lines.push(all.slice(start, i));
      if (c === '\r' && all[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.rest = all.slice(start);
    if (end && this.rest) {
      lines.push(this.rest);
      this.rest = '';
    }
    return lines;
  }
}
