import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { BusClient } from '../libs/common/src/bus/bus-client';
import { numberArg } from './lib/args';
import { machine } from './lib/service';

type BusClientModule = Pick<typeof import('../libs/common/src/bus/bus-client'), 'BusClient'>;

/**
 * The bus client alone over NATS (NATS_URL, the local server by default): one request after another to a responder
 * in a process of its own that answers at once in the framework's wire format with a reply the size of a search's
 * (ten hits of ~300 characters), timed as the caller waits (p50, mean) and in the caller's CPU a request. With
 * ASKDATA_DIST=<other build>/dist that build's client takes turns with this one's, in one process.
 *   node dist/bench/bus-client.js [--requests N] [--rounds N]
 */
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SUBJECT_PREFIX = `bench-bus-client-${process.pid}`;

/** The responder: answers every request on the subject with the same reply, its id echoed, until killed. */
const RESPONDER = `
const { connect } = require(${JSON.stringify(require.resolve('nats'))});
(async () => {
  const nc = await connect({ servers: process.argv[1] });
  const reply = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ id: 'hit' + i, snippet: 'y'.repeat(300) })));
  const te = new TextEncoder(), td = new TextDecoder();
  nc.subscribe(process.argv[2], { queue: 'bench', callback: (e, m) => {
    const { id } = JSON.parse(td.decode(m.data));
    m.respond(te.encode('{"err":null,"response":' + reply + ',"isDisposed":true,"id":"' + id + '"}'));
  } });
  await nc.flush();
  console.log('ready');
})();`;

type Nest = Pick<typeof import('@nestjs/microservices'), 'ClientProxyFactory' | 'Transport'>;

async function clientOf(module: BusClientModule, nestMicroservices: Nest): Promise<BusClient> {
  const proxy = nestMicroservices.ClientProxyFactory.create({ transport: nestMicroservices.Transport.NATS, options: { servers: [NATS_URL], noAsyncTraces: true } });
  const bus = new module.BusClient(proxy, { kind: 'nats', url: NATS_URL, timeoutMs: 5000, subjectPrefix: SUBJECT_PREFIX }, 'bench');
  await bus.onApplicationBootstrap();
  return bus;
}

async function main(): Promise<void> {
  const requests = numberArg('requests', 5000);
  const rounds = numberArg('rounds', 4);
  const responder = spawn(process.execPath, ['-e', RESPONDER, NATS_URL, `${SUBJECT_PREFIX}.catalog.health`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((ready, failed) => {
      responder.stdout.once('data', ready);
      responder.once('exit', () => failed(new Error(`the responder could not reach NATS at ${NATS_URL}`)));
    });
    const builds: Array<[string, BusClient]> = [['this build', await clientOf({ BusClient }, { ClientProxyFactory, Transport })]];
    if (process.env.ASKDATA_DIST) {
      const other = resolve(process.env.ASKDATA_DIST);
      const module = require(join(other, 'libs', 'common', 'src', 'bus', 'bus-client.js')) as BusClientModule;
      const nest = require(require.resolve('@nestjs/microservices', { paths: [other] })) as Nest;
      builds.push([other, await clientOf(module, nest)]);
    }
    console.log(`bus client: ${requests} requests a round, one at a time, ${rounds} rounds; NATS at ${NATS_URL}; ${machine()}`);
    console.log('| build | round | p50 ms | mean ms | caller CPU µs a request |');
    console.log('|---|---|---|---|---|');
    for (let round = 1; round <= rounds; round++) {
      for (const [name, bus] of builds) {
        for (let i = 0; i < 300; i++) await bus.request('catalog.health', {});
        const times: number[] = [];
        const cpu = process.cpuUsage();
        for (let i = 0; i < requests; i++) {
          const t = performance.now();
          await bus.request('catalog.health', {});
          times.push(performance.now() - t);
        }
        const used = process.cpuUsage(cpu);
        times.sort((a, b) => a - b);
        const mean = times.reduce((s, x) => s + x, 0) / times.length;
        console.log(`| ${name} | ${round} | ${times[times.length >> 1].toFixed(3)} | ${mean.toFixed(3)} | ${((used.user + used.system) / requests).toFixed(1)} |`);
      }
    }
    for (const [, bus] of builds) await bus.onApplicationShutdown();
  } finally {
    responder.kill();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
