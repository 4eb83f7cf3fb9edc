import { connect, Socket } from 'node:net';
import { createProjectOn, Project, RunningService, sharedService, startDedicatedGateway } from '../support/harness';

/**
 * A slow client holds no connection for long: the headers, the whole request (body included) and an idle keep-alive
 * connection each have a timeout (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS).
 * Run against a gateway of its own with short ones, so that each closing is seen within the test.
 */
interface Exchange {
  socket: Socket;
  /** Resolves with everything the server sent once it closed the connection. */
  closed: Promise<string>;
}

function open(url: string): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const socket = connect(Number(port), hostname, () => ok({ socket, closed }));
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.once('error', fail);
  });
}

describe('slow clients', () => {
  let gw: RunningService;
  let p: Project;
  beforeAll(async () => {
    gw = await startDedicatedGateway(sharedService(), { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' });
    p = await createProjectOn(gw);
  }, 240_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  it('a body announced at 100 bytes and sent 10 is answered 408 and the connection closed', async () => {
    const { socket, closed } = await open(gw.url);
    socket.write(`POST /v1/upserts HTTP/1.1\r\nHost: test\r\nApi-Key: ${p.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"items":[`);
    const answer = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ message: 'The request was not received in time.' });
  });

  it('a body sent a byte at a time, each in time, is still bounded as a whole', async () => {
    const { socket, closed } = await open(gw.url);
    socket.write(`POST /v1/upserts HTTP/1.1\r\nHost: test\r\nApi-Key: ${p.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    const drip = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
    }
  });

  it('headers that never end are answered 408 and the connection closed', async () => {
    const { socket, closed } = await open(gw.url);
    socket.write(`GET /v1/items HTTP/1.1\r\nHost: test\r\nApi-Key: ${p.key}\r\n`);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('an idle keep-alive connection is closed after its answer', async () => {
    const { socket, closed } = await open(gw.url);
    socket.write(`GET /v1/items HTTP/1.1\r\nHost: test\r\nApi-Key: ${p.key}\r\nConnection: keep-alive\r\n\r\n`);
    const answer = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/keep-alive/i);
  });
});
