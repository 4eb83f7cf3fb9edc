import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { Msg, MsgHdrs } from 'nats';
import { MsgImpl } from 'nats/lib/nats-base-client/msg';
import type { Observable } from 'rxjs';
import { tap } from 'rxjs';
import { BusClient } from '../libs/common/src/bus/bus-client';
import { BusHandlers, BusHeaders, BusReply } from '../libs/common/src/bus/bus-handlers';
import { NamespacedNatsServer } from '../libs/common/src/bus/bus.options';
import { BusContextInterceptor } from '../libs/common/src/observability/bus-context.interceptor';

/**
 * Loaded into a service's processes from the build being measured (`BENCH_NODE_ARGS="-r <build>/dist/bench/bus-times.js"`):
 * times the bus requests each process makes and handles, per subject, and prints them to stderr when it exits (ms,
 * mean and p50):
 * - `asked`: a request as its caller waits for it, from the call to the reply (both modes);
 * - `handled`: the handler, from `BusHandlers` (or the framework's interceptor) to its result: the scope's check, the
 *   handler, the service's work;
 * - over NATS, `arrived`: from the message's arrival to there (reading it, routing it), and `answered`: from the
 *   handler's result to the reply being sent (serialised, encoded, written).
 */
interface Handling {
  subject: string;
  arrived: bigint;
  intercepted?: bigint;
  result?: bigint;
}

const times = new Map<string, number[]>();
const handling = new WeakMap<object, Handling>();

function add(subject: string, span: string, from: bigint, to: bigint): void {
  const key = `${subject} ${span}`;
  const list = times.get(key) ?? [];
  list.push(Number(to - from) / 1e6);
  times.set(key, list);
}

for (const method of ['handleMessage', 'answer'] as const) {
  const handle = NamespacedNatsServer.prototype[method];
  NamespacedNatsServer.prototype[method] = function (this: NamespacedNatsServer, channel: string, message: Msg): Promise<void> {
    // The message's headers are read once, and the same object is what the handler and the reply see.
    const headers = message.headers;
    if (headers && message.reply) handling.set(headers, { subject: channel, arrived: process.hrtime.bigint() });
    return handle.call(this, channel, message) as Promise<void>;
  };
}

/** Where a handler starts: what came before it arrived, and when it started. */
function started(headers: object | undefined): { h: Handling | undefined; at: bigint } {
  const at = process.hrtime.bigint();
  const h = headers ? handling.get(headers) : undefined;
  if (h) {
    h.intercepted = at;
    add(h.subject, 'arrived', h.arrived, at);
  }
  return { h, at };
}

/** A handler's result: how long it took. */
function ended(subject: string, { h, at }: { h: Handling | undefined; at: bigint }): void {
  const now = process.hrtime.bigint();
  add(h?.subject ?? subject, 'handled', at, now);
  if (h) h.result = now;
}

const handle = BusHandlers.prototype.handle;
BusHandlers.prototype.handle = async function (this: BusHandlers, subject: string, payload: unknown, headers: BusHeaders | undefined): Promise<BusReply> {
  const start = started(headers);
  try {
    return await handle.call(this, subject, payload, headers);
  } finally {
    ended(subject, start);
  }
};

type Respond = (this: Msg, ...args: unknown[]) => boolean;
const respond = (MsgImpl.prototype as unknown as { respond: Respond }).respond;
(MsgImpl.prototype as unknown as { respond: Respond }).respond = function (this: Msg, ...args: unknown[]): boolean {
  const h = this.headers ? handling.get(this.headers) : undefined;
  if (h?.result !== undefined) {
    const now = process.hrtime.bigint();
    add(h.subject, 'answered', h.result, now);
    add(h.subject, 'arrived+handled+answered', h.arrived, now);
  }
  return respond.apply(this, args);
};

type Intercept = (this: BusContextInterceptor, context: ExecutionContext, next: CallHandler) => Observable<unknown>;
const intercept = BusContextInterceptor.prototype.intercept as Intercept;
BusContextInterceptor.prototype.intercept = function (this: BusContextInterceptor, context: ExecutionContext, next: CallHandler): Observable<unknown> {
  const ctx = context.switchToRpc().getContext<unknown>();
  const headers = ctx instanceof NatsContext ? (ctx.getHeaders() as MsgHdrs | undefined) : undefined;
  const patterns = (Reflect.getMetadata(PATTERN_METADATA, context.getHandler()) ?? []) as unknown[];
  const subject = typeof patterns[0] === 'string' ? patterns[0] : context.getHandler().name;
  const start = started(headers);
  const timed: CallHandler = { handle: () => next.handle().pipe(tap(() => ended(subject, start))) };
  return intercept.call(this, context, timed);
};

type Request = (this: BusClient, subject: string, ...rest: unknown[]) => Promise<unknown>;
const request = BusClient.prototype.request as unknown as Request;
(BusClient.prototype as unknown as { request: Request }).request = async function (this: BusClient, subject: string, ...rest: unknown[]): Promise<unknown> {
  const started = process.hrtime.bigint();
  try {
    return await request.call(this, subject, ...rest);
  } finally {
    add(subject, 'asked', started, process.hrtime.bigint());
  }
};

process.on('exit', () => {
  const rows = [...times]
    .filter(([, list]) => list.length >= 20)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, list]) => {
      list.sort((a, b) => a - b);
      const mean = list.reduce((s, x) => s + x, 0) / list.length;
      return `| \`${key}\` | ${list.length} | ${mean.toFixed(3)} | ${list[list.length >> 1].toFixed(3)} |`;
    });
  if (rows.length) process.stderr.write(`bus times of process ${process.pid}:\n| subject, span | requests | mean ms | p50 ms |\n|---|---|---|---|\n${rows.join('\n')}\n`);
});
