import { Controller, INestApplication, Module } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { ErrorCode, Subjects } from '@askdata/contracts';
import type { Msg } from 'nats';
import { isBackground } from '../database/priority-pool';
import { currentDeadline, currentRequestId, DEADLINE_HEADER, REQUEST_ID_HEADER, runWithRequestId } from '../observability/request-context';
import { BusClient } from './bus-client';
import { BusHandlers } from './bus-handlers';
import { BusModule } from './bus.module';
import { NamespacedNatsServer } from './bus.options';
import { InProcessServer } from './in-process.transport';
import { ServiceError } from './service-error';

let handled = 0;

@Controller()
class ItemsController {
  @MessagePattern(Subjects.catalog.itemsGet)
  get(@Payload() req: { scope: unknown; id: string }) {
    handled++;
    if (req.id === 'missing') throw ServiceError.notFound('Item');
    if (req.id === 'bug') throw new TypeError('oops');
    return { id: req.id, requestId: currentRequestId(), deadline: currentDeadline(), background: isBackground() };
  }

  @MessagePattern(Subjects.catalog.batchApply)
  apply(@Payload() _req: unknown) {
    return { background: isBackground() };
  }

  @MessagePattern(Subjects.catalog.health)
  health() {
    return { status: 'ok' };
  }

  /** Takes its context too: left to the framework. */
  @MessagePattern(Subjects.catalog.itemsList)
  list(@Payload() _req: unknown, @Ctx() ctx: NatsContext) {
    return { subject: ctx.getSubject() };
  }
}

@Module({ controllers: [ItemsController] })
class ItemsModule {}

const scope = { projectId: '0190f000-0000-7000-8000-000000000000', tenancy: 'single' as const };
const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? '' });

describe('BusHandlers', () => {
  let app: INestApplication;
  let handlers: BusHandlers;

  beforeAll(async () => {
    app = (await Test.createTestingModule({ imports: [ItemsModule] }).compile()).createNestApplication({ logger: false });
    await app.init();
    handlers = BusHandlers.of(app);
  });
  afterAll(() => app.close());

  it("serves the controllers' handlers that take the payload alone or nothing, and leaves the others to the framework", () => {
    expect([Subjects.catalog.itemsGet, Subjects.catalog.batchApply, Subjects.catalog.health].map((s) => handlers.has(s))).toEqual([true, true, true]);
    expect(handlers.has(Subjects.catalog.itemsList)).toBe(false);
  });

  it("runs a request in its caller's correlation id and deadline, in the foreground, and a bulk write in the background", async () => {
    const deadline = Date.now() + 5000;
    const reply = await handlers.handle(Subjects.catalog.itemsGet, { scope, id: 'a' }, headers({ [REQUEST_ID_HEADER]: 'req-9', [DEADLINE_HEADER]: String(deadline) }));
    expect(reply).toEqual({ response: { id: 'a', requestId: 'req-9', deadline, background: false } });
    expect(await handlers.handle(Subjects.catalog.batchApply, {}, undefined)).toEqual({ response: { background: true } });
  });

  it('does not run a request whose deadline passed before it arrived', async () => {
    const before = handled;
    const reply = await handlers.handle(Subjects.catalog.itemsGet, { scope, id: 'a' }, headers({ [DEADLINE_HEADER]: String(Date.now() - 1) }));
    expect(reply).toEqual({ err: expect.objectContaining({ code: ErrorCode.Unavailable }) as unknown });
    expect(handled).toBe(before);
  });

  it('refuses a malformed scope before the handler runs', async () => {
    const before = handled;
    const reply = await handlers.handle(Subjects.catalog.itemsGet, { scope: { projectId: 'nope', tenancy: 'single' }, id: 'a' }, undefined);
    expect(reply).toEqual({ err: { code: ErrorCode.BadRequest, message: 'Malformed request scope.' } });
    expect(handled).toBe(before);
  });

  it("answers a handler's typed error as it is and anything else as an internal error without its stack", async () => {
    expect(await handlers.handle(Subjects.catalog.itemsGet, { scope, id: 'missing' }, undefined)).toEqual({
      err: expect.objectContaining({ code: ErrorCode.NotFound }) as unknown,
    });
    expect(await handlers.handle(Subjects.catalog.itemsGet, { scope, id: 'bug' }, undefined)).toEqual({ err: { code: ErrorCode.Internal, message: 'Internal error.' } });
  });

  describe('over NATS', () => {
    /** A server answering through `handlers`, and a message as the NATS client delivers one, its replies recorded. */
    function delivery(body: string, reply = '_INBOX.x.1') {
      const server = new NamespacedNatsServer({ servers: ['nats://127.0.0.1:1'], queue: 'catalog' }, '', handlers);
      (server as unknown as { natsClient: unknown }).natsClient = { info: { max_payload: 1024 * 1024 } };
      const replies: unknown[] = [];
      const message = {
        subject: 'catalog.items.get',
        reply,
        data: new TextEncoder().encode(body),
        headers: undefined,
        respond: (data: Uint8Array) => replies.push(JSON.parse(new TextDecoder().decode(data))) > 0,
      } as unknown as Msg;
      return { server, message, replies };
    }
    const sent = () => new Promise((r) => setImmediate(r));

    it("answers a request in the framework's wire format, with its id", async () => {
      const { server, message, replies } = delivery(JSON.stringify({ pattern: Subjects.catalog.itemsGet, data: { scope, id: 'b' }, id: 'r1' }));
      await server.answer(Subjects.catalog.itemsGet, message);
      await sent();
      expect(replies).toEqual([{ id: 'r1', isDisposed: true, response: expect.objectContaining({ id: 'b' }) as unknown }]);
    });

    it('answers a failure as an error, and a message that is not JSON as the service being unavailable', async () => {
      const failed = delivery(JSON.stringify({ pattern: Subjects.catalog.itemsGet, data: { scope, id: 'missing' }, id: 'r2' }));
      await failed.server.answer(Subjects.catalog.itemsGet, failed.message);
      const garbled = delivery('{"pattern":');
      await garbled.server.answer(Subjects.catalog.itemsGet, garbled.message);
      await sent();
      expect(failed.replies).toEqual([{ id: 'r2', isDisposed: true, err: expect.objectContaining({ code: ErrorCode.NotFound }) as unknown }]);
      expect(garbled.replies).toEqual([{ isDisposed: true, err: expect.objectContaining({ code: ErrorCode.Unavailable }) as unknown }]);
    });

    it('does not handle a message without an id or nobody to answer', async () => {
      const before = handled;
      const event = delivery(JSON.stringify({ pattern: Subjects.catalog.itemsGet, data: { scope, id: 'c' } }));
      await event.server.answer(Subjects.catalog.itemsGet, event.message);
      const unanswerable = delivery(JSON.stringify({ pattern: Subjects.catalog.itemsGet, data: { scope, id: 'c' }, id: 'r3' }), '');
      await unanswerable.server.answer(Subjects.catalog.itemsGet, unanswerable.message);
      await sent();
      expect([...event.replies, ...unanswerable.replies]).toEqual([]);
      expect(handled).toBe(before);
    });
  });

  describe('in-process', () => {
    let server: INestApplication;
    let client: INestApplication;
    let bus: BusClient;

    beforeAll(async () => {
      server = (await Test.createTestingModule({ imports: [ItemsModule] }).compile()).createNestApplication({ logger: false });
      server.connectMicroservice({ strategy: new InProcessServer(BusHandlers.of(server)) });
      await server.startAllMicroservices();
      await server.init();
      client = (await Test.createTestingModule({ imports: [BusModule.forRoot({ kind: 'in-process', timeoutMs: 1000 }, 'test')] }).compile()).createNestApplication({
        logger: false,
      });
      await client.init();
      bus = client.get(BusClient);
    });
    afterAll(async () => {
      await client.close();
      await server.close();
    });

    it('carries requests, their context and their failures through the handlers', async () => {
      const reply = (await runWithRequestId('req-3', () => bus.request(Subjects.catalog.itemsGet, { scope, id: 'd' }))) as unknown as Record<string, unknown>;
      expect(reply).toMatchObject({ id: 'd', requestId: 'req-3', background: false });
      expect(typeof reply.deadline).toBe('number');
      await expect(bus.request(Subjects.catalog.itemsGet, { scope, id: 'missing' })).rejects.toMatchObject({ code: ErrorCode.NotFound });
      // The handler taking its context still goes through the framework.
      expect(await bus.request(Subjects.catalog.itemsList, { scope } as never)).toEqual({ subject: Subjects.catalog.itemsList });
    });
  });
});
