import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberArg } from './lib/args';
import { collectionMeans, isYoungCollection } from './lib/gc-trace';
import { scifactItems, scifactQuestions } from './lib/data';
import { Api, gatewayMetrics, machine, modeFromArgs, percentile, projectHolding, Running, startService } from './lib/service';

/**
 * Whether a search's slow tail is its question's work or something else's: SciFact's abstracts indexed, then every
 * training question searched (top 10) once a round, `--rounds` rounds. Prints each round's p50 and p99 and those of
 * each question's fastest time over the rounds: a question slow in every round is slow for its work; one slow in a
 * single round met something else (a garbage collection, a timer, another process). Beside them, the gateway
 * process's minor garbage collections during the rounds (the whole service standalone), and the floor: the same
 * client and rounds against a bare node:http server in a process of its own that answers every request with the
 * body of a search, which is the tail this machine and client add to any server. With `--gc-trace`, the service runs
 * with `--trace-gc-nvp` and the young collections of its busiest thread during the rounds are printed: what survived
 * each, what was promoted, the pause.
 *   node dist/bench/search-tail.js [--distributed] [--rounds 3] [--gc-trace]
 */
async function main(): Promise<void> {
  const mode = modeFromArgs();
  const rounds = numberArg('rounds', 3);
  const items = scifactItems();
  const questions = scifactQuestions();
  console.log(`search tail: scifact, ${items.length} items, ${questions.length} questions, ${rounds} rounds; ${mode}; ${machine()}`);
  const logDir = process.argv.includes('--gc-trace') ? mkdtempSync(join(tmpdir(), 'askdata-gc-')) : undefined;
  if (logDir) process.env.BENCH_NODE_ARGS = `--trace-gc-nvp ${process.env.BENCH_NODE_ARGS ?? ''}`;
  const service = await startService(mode, {}, 0, { logDir });
  let body = '';
  let times: number[][];
  let gc: Gc;
  let traced: string | null = null;
  try {
    const api = await projectHolding(service, items, questions, 100);
    body = JSON.stringify(await api.call('POST', '/search', { text: questions[0], limit: 10 }));
    const before = await minorGc(service);
    const logged = logDir ? logLengths(logDir) : new Map<string, number>();
    times = await searchRounds(api, questions, rounds);
    const after = await minorGc(service);
    gc = { count: after.count - before.count, seconds: after.seconds - before.seconds };
    if (logDir) {
      await new Promise((r) => setTimeout(r, 500));
      traced = youngCollections(logDir, logged);
    }
  } finally {
    await service.stop();
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  }
  const floor = await floorRounds(body, questions, rounds);
  console.log('| searches | p50 ms | p99 ms | p99/p50 |');
  console.log('|---|---|---|---|');
  const print = (label: string, list: number[][]) => {
    list.forEach((round, r) => row(`${label}round ${r + 1}`, round));
    row(
      `${label}each question's fastest`,
      questions.map((_, k) => Math.min(...list.map((round) => round[k]))),
    );
  };
  print('', times);
  print(`floor (a bare server answering ${body.length} bytes): `, floor);
  const searches = rounds * questions.length;
  console.log(
    `gateway process: ${gc.count} minor garbage collections during the rounds, one every ${(searches / Math.max(1, gc.count)).toFixed(0)} searches, ` +
      `${((gc.seconds * 1000) / Math.max(1, gc.count)).toFixed(2)} ms each on average`,
  );
  if (traced) console.log(traced);
}

/** Each log file's size in bytes, where the lines to read later start. */
function logLengths(logDir: string): Map<string, number> {
  return new Map(readdirSync(logDir).map((file) => [file, statSync(join(logDir, file)).size]));
}

/** The young collections `--trace-gc-nvp` logged since `from` by the thread that made the most of them. */
function youngCollections(logDir: string, from: Map<string, number>): string {
  const byThread = new Map<string, string[]>();
  for (const file of readdirSync(logDir)) {
    const text = readFileSync(join(logDir, file))
      .subarray(from.get(file) ?? 0)
      .toString();
    for (const line of text.split('\n').filter(isYoungCollection)) {
      const key = `${file} ${/^\[(\d+:0x[0-9a-f]+)\]/.exec(line)?.[1]}`;
      const list = byThread.get(key) ?? [];
      list.push(line);
      byThread.set(key, list);
    }
  }
  const [thread, lines] = [...byThread].sort((a, b) => b[1].length - a[1].length)[0] ?? ['none', []];
  const { survived, promoted, pause } = collectionMeans(lines);
  return (
    `young collections of the busiest thread during the rounds (${thread}): ${lines.length}, ` +
    `survived ${survived.toFixed(0)} KB, promoted ${promoted.toFixed(0)} KB, paused ${pause.toFixed(2)} ms each on average`
  );
}

interface Gc {
  count: number;
  seconds: number;
}

function row(name: string, list: number[]): void {
  const sorted = [...list].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  console.log(`| ${name} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${(p99 / p50).toFixed(1)} |`);
}

async function searchRounds(api: Api, questions: string[], rounds: number): Promise<number[][]> {
  const times: number[][] = [];
  for (let r = 0; r < rounds; r++) {
    const round: number[] = [];
    for (const q of questions) {
      const t = performance.now();
      await api.call('POST', '/search', { text: q, limit: 10 });
      round.push(performance.now() - t);
    }
    times.push(round);
  }
  return times;
}

/** The gateway's minor collections so far, from its metrics (prom-client's `nodejs_gc_duration_seconds`). */
async function minorGc(service: Running): Promise<Gc> {
  const text = await gatewayMetrics(service);
  const value = (suffix: string) => Number(new RegExp(`^nodejs_gc_duration_seconds_${suffix}\\{kind="minor"\\} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), seconds: value('sum') };
}

/** The same rounds against a bare node:http server in a child process, answering `body` to every request. */
async function floorRounds(body: string, questions: string[], rounds: number): Promise<number[][]> {
  const script = `
    const body = Buffer.from(process.env.FLOOR_BODY);
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length }).end(body));
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, FLOOR_BODY: body }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const api = new Api(`http://127.0.0.1:${Number(line.toString().trim())}`, 'floor');
    for (const q of questions.slice(0, 100)) await api.call('POST', '/search', { text: q, limit: 10 });
    return await searchRounds(api, questions, rounds);
  } finally {
    child.kill();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
