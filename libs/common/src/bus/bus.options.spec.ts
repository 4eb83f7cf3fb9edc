import { MessageHandler } from '@nestjs/microservices';
import { NamespacedNatsServer } from './bus.options';

describe('NamespacedNatsServer', () => {
  it('finds the handler of a subject, and of a pattern written as JSON as the framework does', () => {
    const server = new NamespacedNatsServer({ servers: ['nats://127.0.0.1:1'], queue: 'test' }, 'prod');
    const search = (async () => 'search') as MessageHandler;
    const command = (async () => 'command') as MessageHandler;
    server.addHandler('retrieval.search', search);
    server.addHandler({ cmd: 'sum' }, command);
    expect(server.getHandlerByPattern('retrieval.search')).toBe(search);
    expect(server.getHandlerByPattern(JSON.stringify({ cmd: 'sum' }))).toBe(command);
    expect(server.getHandlerByPattern('retrieval.other')).toBeNull();
  });
});
