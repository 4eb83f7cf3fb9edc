import { Client } from 'pg';

/**
 * Loaded into a service's processes (`BENCH_NODE_ARGS="-r ./dist/bench/statement-times.js"`): times every statement
 * of the `pg` client, from the call to its result, and prints the 20 costliest statement shapes to stderr when the
 * process exits. Standalone mode has one connection, held by one statement or transaction at a time, so the times add
 * up to about the embedded database's busy time; each also holds the main thread's delay in taking its result.
 */
const times = new Map<string, { calls: number; micros: number }>();
type Query = (this: Client, ...args: unknown[]) => unknown;
const query = Client.prototype.query as unknown as Query;

(Client.prototype as unknown as { query: Query }).query = function (this: Client, ...args: unknown[]): unknown {
  const config = args[0] as string | { text?: string } | undefined;
  const text = typeof config === 'string' ? config : (config?.text ?? '?');
  const shape = text.replace(/\s+/g, ' ').trim().slice(0, 80);
  const started = process.hrtime.bigint();
  const done = () => {
    const t = times.get(shape) ?? { calls: 0, micros: 0 };
    t.calls++;
    t.micros += Number(process.hrtime.bigint() - started) / 1000;
    times.set(shape, t);
  };
  const result = query.apply(this, args);
  if (result instanceof Promise) result.then(done, done);
  return result;
};

process.on('exit', () => {
  const total = [...times.values()].reduce((s, t) => s + t.micros, 0);
  const rows = [...times].sort((a, b) => b[1].micros - a[1].micros).slice(0, 20);
  const lines = rows.map(([shape, t]) => `| ${(t.micros / 1000).toFixed(0)} | ${t.calls} | \`${shape.replace(/\|/g, '\\|')}\` |`);
  process.stderr.write(`statement times of process ${process.pid} (${(total / 1000).toFixed(0)} ms in all):\n| ms | calls | statement |\n|---|---|---|\n${lines.join('\n')}\n`);
});
