import { ErrorCode, StreamEvent } from '@askdata/contracts';
import { BusClient } from './bus-client';
import { InProcessClient } from './in-process.transport';
import { ServiceError } from './service-error';
import { StreamReceiver, StreamSender } from './stream';

const bus = () => new BusClient(new InProcessClient(), { kind: 'in-process', timeoutMs: 1000 }, 'test');
const delta = (text: string): StreamEvent => ({ event: 'delta', data: { text } });

describe('answer streams over the bus', () => {
  it('delivers the events in order and ends after done', async () => {
    const b = bus();
    const receiver = await StreamReceiver.open(b);
    const sender = await StreamSender.open(b, receiver.ticket);
    const sending = (async () => {
      for (const t of ['a', 'b', 'c']) await sender.send(delta(t));
      await sender.send({ event: 'done', data: { id: 1 } });
      sender.close();
    })();
    const got: StreamEvent[] = [];
    for await (const e of receiver) got.push(e);
    await sending;
    expect(got).toEqual([delta('a'), delta('b'), delta('c'), { event: 'done', data: { id: 1 } }]);
  });

  it('keeps a sender at most a window ahead of its reader', async () => {
    const b = bus();
    const receiver = await StreamReceiver.open(b);
    const sender = await StreamSender.open(b, { ...receiver.ticket, window: 4 });
    let sent = 0;
    const sending = (async () => {
      for (let i = 0; i < 10; i++) {
        await sender.send(delta(String(i)));
        sent++;
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    expect(sent).toBe(4);
    const events = receiver[Symbol.asyncIterator]();
    await events.next();
    await events.next();
    await new Promise((r) => setTimeout(r, 50));
    expect(sent).toBe(6);
    for (let i = 0; i < 8; i++) await events.next();
    await sending;
    expect(sent).toBe(10);
    sender.close();
    receiver.close();
  });

  it("aborts the sender's signal when the receiver cancels, and its next send fails", async () => {
    const b = bus();
    const receiver = await StreamReceiver.open(b);
    const sender = await StreamSender.open(b, receiver.ticket);
    await sender.send(delta('a'));
    receiver.cancel();
    expect(sender.signal.aborted).toBe(true);
    const failure = await sender.send(delta('b')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).code).toBe(ErrorCode.Unavailable);
    sender.close();
  });

  it('ends the events with the error of the request behind them', async () => {
    const b = bus();
    const receiver = await StreamReceiver.open(b);
    const sender = await StreamSender.open(b, receiver.ticket);
    await sender.send(delta('a'));
    const error = new ServiceError(ErrorCode.Unavailable, 'model down');
    receiver.fail(error);
    const events = receiver[Symbol.asyncIterator]();
    expect((await events.next()).value).toEqual(delta('a'));
    await expect(events.next()).rejects.toBe(error);
    sender.close();
  });
});
