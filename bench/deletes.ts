import { SyntheticCorpus } from './lib/synthetic';
import { Api, machine, modeFromArgs, numberArg as arg, startService } from './lib/service';

/**
 * Delete throughput: a collection of `--items` items is loaded, then deleted; prints how long the delete took from
 * its 202 to `completed` (items leave sources, the index and catalog, in rounds of 500), and the same for one item.
 *   node dist/bench/deletes.js [--distributed] [--items 20000] [--bytes 1000] [--pause seconds before deleting]
 *   (BENCH_LOG_DIR=dir keeps the logs)
 */
async function main(): Promise<void> {
  const mode = modeFromArgs();
  const count = arg('items', 20000);
  const bytes = arg('bytes', 1000);
  const corpus = new SyntheticCorpus();
  console.log(`deletes: a collection of ${count} items of ~${bytes} bytes, and one item; ${mode}; ${machine()}`);
  const service = await startService(mode, {}, 0, process.env.BENCH_LOG_DIR ? { logDir: process.env.BENCH_LOG_DIR } : {});
  try {
    const api = await Api.withProject(service);
    await api.upsertAll(
      Array.from({ length: count }, (_, i) => corpus.item(i, bytes)),
      { collection: { slug: 'bulk' } },
    );
    await api.upsertAll([corpus.item(count, bytes)], { collection: { slug: 'single' } });
    // With --pause, deleted after the service's background work on the load (block merges, vacuum) has run.
    await new Promise((r) => setTimeout(r, arg('pause', 0) * 1000));
    const timed = async (path: string) => {
      const t0 = performance.now();
      const receipt = await api.call<{ data: { id: string } }>('DELETE', path);
      await api.waitCompleted([receipt.data.id]);
      return (performance.now() - t0) / 1000;
    };
    const ids = async (slug: string) => (await api.call<{ data: Array<{ id: string }> }>('GET', `/collections?slug=${slug}`)).data[0].id;
    const [one] = (await api.call<{ data: Array<{ id: string }> }>('GET', '/items?collection=single')).data;
    const single = await timed(`/items/${one.id}`);
    const bulk = await timed(`/collections/${await ids('bulk')}`);
    console.log('| mode | deleted | completed after (s) | items/s |');
    console.log('|---|---|---|---|');
    console.log(`| ${mode} | 1 item | ${single.toFixed(2)} | - |`);
    console.log(`| ${mode} | collection of ${count} | ${bulk.toFixed(1)} | ${Math.round(count / bulk)} |`);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
