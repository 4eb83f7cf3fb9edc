import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { EventEmitter } from 'node:events';
import { bufferWholeMessages } from './whole-messages';

/** A protocol message with a type byte: type, length (itself included), body. */
function message(type: string, body: string): Buffer {
  const payload = Buffer.from(`${body}\0`);
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeInt32BE(4 + payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** The startup message: no type byte, protocol 3.0. */
function startup(): Buffer {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const header = Buffer.alloc(8);
  header.writeInt32BE(8 + params.length, 0);
  header.writeInt32BE(196608, 4);
  return Buffer.concat([header, params]);
}

/** A handler on a fake socket whose queue records the messages it is given for the database. */
function connection(): { received: Buffer[]; send(chunks: Buffer[]): Promise<void> } {
  const received: Buffer[] = [];
  const queryQueue = {
    enqueue: (_id: number, m: Uint8Array) => {
      received.push(Buffer.from(m));
      return Promise.resolve(0);
    },
    clearQueueForHandler: () => undefined,
    clearTransactionIfNeeded: () => Promise.resolve(),
  };
  const socket = Object.assign(new EventEmitter(), { writable: true, setNoDelay: () => undefined, write: () => true, end: () => undefined, destroy: () => undefined });
  const handler = new (PGLiteSocketHandler as unknown as new (o: object) => { attach(s: unknown): Promise<unknown> })({ queryQueue });
  const attached = handler.attach(socket);
  return {
    received,
    async send(chunks) {
      await attached;
      for (const c of chunks) socket.emit('data', c);
      // The handler takes each chunk on a later turn of the event loop.
      for (let i = 0; i < 2 * chunks.length + 10; i++) await new Promise((r) => setImmediate(r));
    },
  };
}

function split(bytes: Buffer, size: number): Buffer[] {
  const chunks = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

describe('embedded PostgreSQL socket: whole messages', () => {
  beforeAll(() => bufferWholeMessages(PGLiteSocketHandler));
  afterEach(() => jest.restoreAllMocks());

  it('hands a large statement read in many small chunks to the database in one piece, copying it about twice', async () => {
    const { received, send } = connection();
    const statement = message('Q', `INSERT INTO t VALUES ('${'x'.repeat(4 * 1024 * 1024)}')`);
    const sync = message('S', '');
    const chunks = split(Buffer.concat([statement, sync]), 64 * 1024);
    const concat = jest.spyOn(Buffer, 'concat');
    await send(chunks);
    const copied = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0);
    expect(received).toHaveLength(2);
    expect(received[0].equals(statement)).toBe(true);
    expect(received[1].equals(sync)).toBe(true);
    // Appending each chunk to the bytes held (the handler's own way) would copy about 64 times the statement.
    expect(copied).toBeLessThan(3 * statement.length);
  });

  it.each([1, 2, 3, 5, 7, 64])('hands over the startup and later messages intact and in order, read %i bytes at a time', async (size) => {
    const { received, send } = connection();
    const messages = [startup(), message('Q', 'SELECT 1'), message('P', 'SELECT $1'), message('B', ''), message('E', ''), message('S', '')];
    await send(split(Buffer.concat(messages), size));
    expect(received.map((m) => m.toString('hex'))).toEqual(messages.map((m) => m.toString('hex')));
  });

  it('hands over several messages read in one chunk, and a message whose header is split between chunks', async () => {
    const { received, send } = connection();
    const [a, b, c] = [message('Q', 'SELECT 1'), message('Q', 'SELECT 2'), message('Q', `SELECT '${'y'.repeat(100000)}'`)];
    const all = Buffer.concat([a, b, c]);
    // The second chunk ends two bytes into c's header.
    await send([all.subarray(0, a.length - 3), all.subarray(a.length - 3, a.length + b.length + 2), all.subarray(a.length + b.length + 2)]);
    expect(received.map((m) => m.toString('hex'))).toEqual([a, b, c].map((m) => m.toString('hex')));
  });
});
