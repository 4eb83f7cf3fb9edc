import { Client } from 'pg';
import { listArg, numberArg } from './lib/args';
import { benchBus } from './lib/private-infra';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * How cost grows with the index: the index is grown step by step to each size (items of ~600 bytes, one chunk
 * each), and at each size the time the step took to ingest and the latency of POST /v1/search, POST /v1/query
 * (extractive) and GET /v1/items, one request at a time after a warm-up. Sizes above --measure-up-to are not
 * ingested: they are estimated from a power law fitted through the measured points, and printed as estimates.
 *   node dist/bench/growth.js [--distributed [--private-nats]] [--sizes 10000,100000,1000000]
 *                             [--measure-up-to 100000] [--queries 200]
 */

interface Point {
  chunks: number;
  ingestSeconds: number;
  itemsPerSecond: number;
  search: [number, number];
  query: [number, number];
  list: [number, number];
  databaseMb: number | null;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<[number, number]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  out.sort((a, b) => a - b);
  return [percentile(out, 50), percentile(out, 99)];
}

/**
 * Least squares through (log x, log y): y = c * x^k, with k kept within `bounds`: a bigger index does not make
 * ingestion faster or a search quicker, whatever warm-up and noise suggest at small sizes.
 */
function powerFit(xs: number[], ys: number[], bounds: [number, number]): { k: number; at(x: number): number } {
  const lx = xs.map(Math.log);
  const ly = ys.map((y) => Math.log(Math.max(y, 1e-9)));
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  const sxx = lx.reduce((s, x) => s + (x - mx) ** 2, 0);
  const fitted = sxx === 0 ? 0 : lx.reduce((s, x, i) => s + (x - mx) * (ly[i] - my), 0) / sxx;
  const k = Math.min(bounds[1], Math.max(bounds[0], fitted));
  const c = Math.exp(my - k * mx);
  return { k, at: (x) => c * x ** k };
}

async function databaseMb(url: string | null): Promise<number | null> {
  if (!url) return null;
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
    return Number(rows[0].bytes) / 2 ** 20;
  } finally {
    await db.end();
  }
}

const ms = (v: number) => v.toFixed(1);

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const sizes = listArg('sizes', ['10000', '100000', '1000000'])
    .map(Number)
    .sort((a, b) => a - b);
  const measureUpTo = numberArg('measure-up-to', 100000);
  const queries = numberArg('queries', 200);
  const measured = sizes.filter((s) => s <= measureUpTo);
  const estimated = sizes.filter((s) => s > measureUpTo);
  if (measured.length < 2 && estimated.length) throw new Error('estimates need at least two measured sizes (see --measure-up-to)');
  console.log(
    `growth: ${mode}; measured at ${measured.join(', ')} chunks${estimated.length ? `, estimated at ${estimated.join(', ')}` : ''}; ${queries} questions per size; ${machine()}`,
  );

  const corpus = new SyntheticCorpus();
  const questions = Array.from({ length: queries }, () => corpus.question());
  const bus = await benchBus(mode === 'distributed');
  const service = await startService(mode, {}, 0, { natsUrl: bus.natsUrl });
  const points: Point[] = [];
  try {
    const api = await Api.withProject(service);
    let have = 0;
    let total = 0;
    for (const size of measured) {
      const t0 = performance.now();
      for (let i = have; i < size; i += 10000) {
        const items = Array.from({ length: Math.min(10000, size - i) }, (_, j) => corpus.item(i + j, 600));
        await api.upsertAll(items, { batch: 500, parallel: 4 });
      }
      const step = (performance.now() - t0) / 1000;
      total += step;
      const itemsPerSecond = (size - have) / step;
      have = size;
      await timed(20, (i) => api.call('POST', '/search', { text: questions[i % queries] }));
      const search = await timed(queries, (i) => api.call('POST', '/search', { text: questions[i] }));
      const query = await timed(queries, (i) => api.call('POST', '/query', { text: questions[i] }));
      const list = await timed(queries, () => api.call('GET', '/items?per_page=20'));
      points.push({ chunks: size, ingestSeconds: total, itemsPerSecond, search, query, list, databaseMb: await databaseMb(service.databaseUrl) });
      console.log(`  measured ${size} chunks (ingest ${total.toFixed(0)} s so far)`);
    }
  } finally {
    await service.stop();
    await bus.stop();
  }

  console.log('');
  console.log('| chunks | ingest s (cumulative) | items/s in the step | search p50 / p99 ms | query p50 / p99 ms | GET /items p50 / p99 ms | database MB | |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const p of points) {
    console.log(
      `| ${p.chunks} | ${p.ingestSeconds.toFixed(0)} | ${p.itemsPerSecond.toFixed(0)} | ${ms(p.search[0])} / ${ms(p.search[1])} | ${ms(p.query[0])} / ${ms(p.query[1])} | ${ms(p.list[0])} / ${ms(p.list[1])} | ${p.databaseMb === null ? 'n/a' : p.databaseMb.toFixed(0)} | measured |`,
    );
  }
  if (estimated.length) {
    const xs = points.map((p) => p.chunks);
    const fit = (pick: (p: Point) => number, bounds: [number, number] = [0, 2]) => powerFit(xs, points.map(pick), bounds);
    // Ingest: the rest of the way at the step throughput the fit gives halfway there (throughput falls as the index grows).
    const rate = fit((p) => p.itemsPerSecond, [-2, 0]);
    const last = points[points.length - 1];
    const ingestAt = (n: number) => last.ingestSeconds + (n - last.chunks) / rate.at((n + last.chunks) / 2);
    const curves = {
      s50: fit((p) => p.search[0]),
      s99: fit((p) => p.search[1]),
      q50: fit((p) => p.query[0]),
      q99: fit((p) => p.query[1]),
      l50: fit((p) => p.list[0]),
      l99: fit((p) => p.list[1]),
    };
    const mb = points.every((p) => p.databaseMb !== null) ? fit((p) => p.databaseMb ?? 0) : null;
    for (const n of estimated) {
      console.log(
        `| ${n} | ~${ingestAt(n).toFixed(0)} | ~${rate.at((n + last.chunks) / 2).toFixed(0)} | ~${ms(curves.s50.at(n))} / ~${ms(curves.s99.at(n))} | ~${ms(curves.q50.at(n))} / ~${ms(curves.q99.at(n))} | ~${ms(curves.l50.at(n))} / ~${ms(curves.l99.at(n))} | ${mb ? `~${mb.at(n).toFixed(0)}` : 'n/a'} | **estimated** |`,
      );
    }
    console.log('');
    console.log(
      `Estimated rows are extrapolated, not measured: a power law y = c * chunks^k fitted through the ${points.length} measured sizes, ` +
        `k at most 0 for throughput and at least 0 for latencies and size ` +
        `(k: items/s ${rate.k.toFixed(2)}, search p50 ${curves.s50.k.toFixed(2)}, query p50 ${curves.q50.k.toFixed(2)}, GET /items p50 ${curves.l50.k.toFixed(2)}).`,
    );
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
