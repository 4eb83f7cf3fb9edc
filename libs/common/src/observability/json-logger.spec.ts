import { Writable } from 'node:stream';
import { JsonLogger, maskSecrets } from './json-logger';
import { runWithRequestId } from './request-context';

function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, stream };
}

describe('JsonLogger', () => {
  it('writes one JSON object per event with service, level, context and the request id', () => {
    const { lines, stream } = capture();
    const logger = new JsonLogger('catalog', 'info', stream);
    runWithRequestId('req-42', () => logger.warn('slow query', 'ItemsService'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', service: 'catalog', context: 'ItemsService', requestId: 'req-42', msg: 'slow query' });
  });

  it('masks API keys, admin tokens and bearer credentials in messages and objects', () => {
    const { lines, stream } = capture();
    const logger = new JsonLogger('gateway', 'info', stream);
    logger.log(`key ak_${'x'.repeat(43)} and Authorization: Bearer adm_${'y'.repeat(30)}`);
    logger.log({ msg: 'headers', headers: { authorization: 'Bearer abc', 'api-key': 'ak_secret' }, apiKey: 'sk-ant-123456789012' });
    const text = JSON.stringify(lines);
    expect(text).not.toContain('x'.repeat(43));
    expect(text).not.toContain('y'.repeat(30));
    expect(text).not.toContain('ak_secret');
    expect(text).not.toContain('sk-ant-123456789012');
    expect(text).not.toContain('Bearer abc');
  });

  it('respects the level and leaves out start-up chatter', () => {
    const { lines, stream } = capture();
    const logger = new JsonLogger('x', 'warn', stream);
    logger.log('info line');
    logger.debug('debug line');
    logger.error('boom', 'stack trace here', 'Ctx');
    new JsonLogger('x', 'info', stream).log('Mapped {/v1/items, GET} route', 'RouterExplorer');
    expect(lines.map((l) => l.msg)).toEqual(['boom']);
    expect(lines[0]).toMatchObject({ level: 'error', context: 'Ctx', stack: 'stack trace here' });
  });

  it('maskSecrets leaves ordinary text alone', () => {
    expect(maskSecrets('nothing secret here')).toBe('nothing secret here');
  });
});
