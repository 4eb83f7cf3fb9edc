import { Controller, INestApplication, Module } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { ErrorCode, Subjects } from '@askdata/contracts';
import { BusContextInterceptor } from '../observability/bus-context.interceptor';
import { currentDeadline, currentRequestId, DEADLINE_HEADER, runWithRequestContext, runWithRequestId } from '../observability/request-context';
import { lastValueFrom, of } from 'rxjs';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { BusExceptionFilter } from './bus-exception.filter';
import { BusClient } from './bus-client';
import { BusModule } from './bus.module';
import { InProcessClient, InProcessServer } from './in-process.transport';
import { ServiceError } from './service-error';

let handled = 0;

@Controller()
class EchoController {
  @MessagePattern(Subjects.catalog.itemsGet)
  echo(@Payload() req: { scope: unknown; id: string; when?: unknown }, @Ctx() ctx: NatsContext) {
    if (req.id === 'missing') throw ServiceError.notFound('Item');
    if (req.id === 'bug') throw new TypeError('oops');
    handled++;
    if (req.id === 'deadline') return { deadline: currentDeadline(), header: ctx.getHeaders()?.get(DEADLINE_HEADER) };
    return { id: req.id, when: req.when, requestId: currentRequestId(), header: ctx.getHeaders()?.get('x-request-id') ?? null };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

describe('in-process bus', () => {
  let server: INestApplication;
  let client: INestApplication;
  let bus: BusClient;

  beforeAll(async () => {
    const s = await Test.createTestingModule({ imports: [EchoModule] }).compile();
    server = s.createNestApplication({ logger: false });
    server.useGlobalFilters(new BusExceptionFilter());
    server.useGlobalInterceptors(new BusContextInterceptor());
    server.connectMicroservice({ strategy: new InProcessServer() }, { inheritAppConfig: true });
    await server.startAllMicroservices();
    await server.init();
    const c = await Test.createTestingModule({ imports: [BusModule.forRoot({ kind: 'in-process', timeoutMs: 1000 }, 'test')] }).compile();
    client = c.createNestApplication({ logger: false });
    await client.init();
    bus = client.get(BusClient);
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const scope = { projectId: '0190f000-0000-7000-8000-000000000000', tenancy: 'single' as const };

  it('delivers a copy of the payload, as serialized on the wire, and carries the request id in headers', async () => {
    const when = new Date('2026-01-01T00:00:00Z');
    const reply = (await runWithRequestId('req-7', () => bus.request(Subjects.catalog.itemsGet, { scope, id: 'a', when } as never))) as unknown as Record<string, unknown>;
    expect(reply).toEqual({ id: 'a', when: '2026-01-01T00:00:00.000Z', requestId: 'req-7', header: 'req-7' });
  });

  it('sends the deadline with the request: its timeout from now, or the sooner deadline of the request being handled', async () => {
    const before = Date.now();
    const own = (await bus.request(Subjects.catalog.itemsGet, { scope, id: 'deadline' })) as unknown as { deadline: number; header: string };
    expect(own.deadline).toBeGreaterThanOrEqual(before + 1000);
    expect(own.deadline).toBeLessThanOrEqual(Date.now() + 1000);
    expect(own.header).toBe(String(own.deadline));

    const sooner = Date.now() + 400;
    const inherited = await runWithRequestContext({ requestId: 'r', deadline: sooner }, () => bus.request(Subjects.catalog.itemsGet, { scope, id: 'deadline' }));
    expect((inherited as unknown as { deadline: number }).deadline).toBe(sooner);
  });

  it('sends nothing once the deadline of the request being handled has passed', async () => {
    const count = handled;
    const late = runWithRequestContext({ requestId: 'r', deadline: Date.now() - 1 }, () => bus.request(Subjects.catalog.itemsGet, { scope, id: 'a' }));
    await expect(late).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(handled).toBe(count);
  });

  it('does not handle a request that arrives after its deadline', async () => {
    const headers = { get: (name: string) => (name === DEADLINE_HEADER ? String(Date.now() - 5) : '') };
    const context = {
      switchToRpc: () => ({ getContext: () => new NatsContext(['subject', headers as never]) }),
      getHandler: () => () => undefined,
    } as unknown as ExecutionContext;
    let called = false;
    const next: CallHandler = { handle: () => ((called = true), of('done')) };
    await expect(lastValueFrom(new BusContextInterceptor().intercept(context, next))).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(called).toBe(false);
  });

  it('turns a typed service error back into the same ServiceError', async () => {
    await expect(bus.request(Subjects.catalog.itemsGet, { scope, id: 'missing' })).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: 'Item not found.',
    });
  });

  it('hides an unexpected error behind INTERNAL', async () => {
    await expect(bus.request(Subjects.catalog.itemsGet, { scope, id: 'bug' })).rejects.toMatchObject({ code: ErrorCode.Internal });
  });

  it('answers UNAVAILABLE when no service handles the subject', async () => {
    await expect(bus.request(Subjects.retrieval.search, { scope } as never)).rejects.toMatchObject({ code: ErrorCode.Unavailable });
  });

  it('delivers a broadcast to every listener, as a copy, before publish returns; a failing listener fails nobody', async () => {
    const heard: Array<{ projectId: string }> = [];
    expect(
      await bus.subscribe(Subjects.catalog.changed, () => {
        throw new Error('listener bug');
      }),
    ).toBe(false); // nobody outside this process to hear from
    await bus.subscribe(Subjects.catalog.changed, (payload) => heard.push(payload));
    const payload = { projectId: 'p1' };
    const published = bus.publish(Subjects.catalog.changed, payload);
    expect(heard).toEqual([{ projectId: 'p1' }]); // synchronously, not on a later tick
    await published;
    expect(heard[0]).not.toBe(payload);
  });

  it('stops delivering broadcasts to a client that has shut down', async () => {
    const gone = new BusClient(new InProcessClient(), { kind: 'in-process', timeoutMs: 1000 }, 'gone');
    const heard: string[] = [];
    await gone.subscribe(Subjects.catalog.changed, ({ projectId }) => heard.push(projectId));
    await bus.publish(Subjects.catalog.changed, { projectId: 'before' });
    await gone.onApplicationShutdown();
    await bus.publish(Subjects.catalog.changed, { projectId: 'after' });
    expect(heard).toEqual(['before']);
  });
});
