import { SyntheticCorpus } from './lib/synthetic';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * A question filtered with a large `$in` list ({"group": {"$in": [1,000 values]}}) on one project, and what it
 * costs everyone else: the time of POST /v1/search with that filter, and of a trivial GET /v1/items of another
 * project sent while it runs (against the same GET on an idle service).
 *   node dist/bench/filter-in.js [--distributed] [--items 5000] [--values 1000] [--rounds 10]
 * ASKDATA_DIST=<dir> runs another build (e.g. one made before a change) with this same driver.
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function ms(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const items = arg('items', 5000);
  const values = arg('values', 1000);
  const rounds = arg('rounds', 10);
  const corpus = new SyntheticCorpus();
  console.log(`filter-in: ${items} items, $in of ${values} values, ${rounds} rounds; ${mode}; ${machine()}`);
  // Lists are not kept, so that every GET reaches the database.
  const service = await startService(mode, { LIST_CACHE_TTL_MS: '0' });
  try {
    const big = await Api.withProject(service);
    const other = await Api.withProject(service);
    await big.upsertAll(
      Array.from({ length: items }, (_, i) => corpus.item(i, 600)),
      { batch: 500, parallel: 2 },
    );
    await other.upsertAll(Array.from({ length: 20 }, (_, i) => corpus.item(i, 200)));
    // One value that matches (a quarter of the items), the others that match nothing.
    const filter = { group: { $in: ['b', ...Array.from({ length: values - 1 }, (_, i) => `none-${i}`)] } };
    const questions = Array.from({ length: rounds }, () => corpus.question());
    const list = () => other.call('GET', '/items');

    for (let i = 0; i < 5; i++) await list();
    const idle: number[] = [];
    for (let i = 0; i < rounds; i++) idle.push(await ms(list));
    const filtered: number[] = [];
    const behind: number[] = [];
    for (const text of questions) {
      const search = ms(() => big.call('POST', '/search', { text, filter, limit: 10 }));
      // Sent just after the filtered search, so that it queues behind it wherever the two meet.
      await new Promise((r) => setTimeout(r, 20));
      behind.push(await ms(list));
      filtered.push(await search);
    }
    for (const a of [idle, filtered, behind]) a.sort((x, y) => x - y);
    const f = (a: number[], p: number) => percentile(a, p).toFixed(0);
    console.log("| mode | filtered search p50 / max ms | other project's GET /v1/items while it runs, p50 / max ms | same GET, idle service, p50 ms |");
    console.log('|---|---|---|---|');
    console.log(`| ${mode} | ${f(filtered, 50)} / ${f(filtered, 100)} | ${f(behind, 50)} / ${f(behind, 100)} | ${f(idle, 50)} |`);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
