/** What `bufferWholeMessages` relies on in pglite-socket's connection handler (private members there). */
interface HandlerInternals {
  /** Bytes read and not yet handed to the database: the start of a message. */
  messageBuffer: Buffer;
  /** Appends a chunk read from the socket to `messageBuffer`, then runs every whole message in it. */
  handleData(chunk: Buffer): Promise<number>;
}

const PENDING = Symbol('chunks of an incomplete message');

type Handler = HandlerInternals & { [PENDING]?: Buffer[] };

/**
 * pglite-socket's connection handler appends each chunk read from the socket to the bytes it holds with
 * `Buffer.concat`, so a message of n bytes arriving in chunks of c bytes costs n²/2c bytes of copying: half a
 * gigabyte for one 8 MB statement, on the database's thread. This makes the handler keep a message's chunks aside
 * until the whole message is there and pass them on in one piece, so each byte is copied about twice.
 *
 * Only messages with a type byte and a length (every message after the start of a session) are held: the startup,
 * SSL and cancel requests, which have no type byte, are passed on as they come. A handler whose internals are not
 * as expected is left as it is.
 */
export function bufferWholeMessages(handlerClass: { prototype: object }): void {
  const proto = handlerClass.prototype as Partial<HandlerInternals>;
  const handleData = proto.handleData;
  if (typeof handleData !== 'function') return;
  proto.handleData = function (this: Handler, chunk: Buffer): Promise<number> {
    const chunks = (this[PENDING] ??= []);
    chunks.push(chunk);
    const held = Buffer.isBuffer(this.messageBuffer) ? this.messageBuffer : Buffer.alloc(0);
    let bytes = held.length;
    for (const c of chunks) bytes += c.length;
    if (bytes < firstMessageLength([held, ...chunks])) return Promise.resolve(0);
    this[PENDING] = undefined;
    return handleData.call(this, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  };
}

/** The length of the first message in these bytes, if it has a type byte and its header is there; else 0. */
function firstMessageLength(parts: Buffer[]): number {
  const header = Buffer.alloc(5);
  let filled = 0;
  for (const part of parts) {
    if (filled === header.length) break;
    filled += part.copy(header, filled, 0, Math.min(part.length, header.length - filled));
  }
  if (filled < header.length || header[0] === 0) return 0;
  return 1 + header.readInt32BE(1);
}
