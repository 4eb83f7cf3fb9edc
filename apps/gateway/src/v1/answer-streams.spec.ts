import type { Request } from 'express';
import { wantsStream } from './answer-streams';

const asking = (accept: string | undefined, body: unknown = { text: 'When are you open?' }) => ({ headers: { accept }, body }) as unknown as Request;

describe('wantsStream', () => {
  it('streams when Accept names text/event-stream, whatever else it names', () => {
    for (const accept of ['text/event-stream', 'TEXT/Event-Stream', 'application/json, text/event-stream', 'text/event-stream;q=0.5', 'text/event-stream; charset=utf-8']) {
      expect(wantsStream(asking(accept))).toBe(true);
    }
    for (const accept of [undefined, '', 'application/json', '*/*', 'text/*', 'text/event-streams']) expect(wantsStream(asking(accept))).toBe(false);
  });

  it('does not stream when Accept says text/event-stream is not acceptable (q=0)', () => {
    for (const accept of ['text/event-stream;q=0', 'text/event-stream; q=0.0, application/json', 'application/json, text/event-stream ;Q=0.000']) {
      expect(wantsStream(asking(accept))).toBe(false);
    }
  });

  it('lets the body decide when it says stream', () => {
    expect(wantsStream(asking('application/json', { text: 'x', stream: true }))).toBe(true);
    expect(wantsStream(asking('text/event-stream', { text: 'x', stream: false }))).toBe(false);
  });
});
