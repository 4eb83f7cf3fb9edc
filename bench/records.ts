import { QaAnswer, looseText } from './lib/data';
import { recordCatalogue } from './lib/record-catalogue';
import { numberArg } from './lib/args';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * Answers from records through POST /v1/query: a generated catalogue (products, people, orders with line items,
 * events; fixed seed) and field questions in varied phrasings. Prints the share of answers that contain the asked
 * value, the share whose first source is the record asked about, the share of questions for a field the record
 * lacks that are answered with "does not state", and the /query latency.
 *   node dist/bench/records.js [--distributed] [--records 2000] [--questions 2000] [--seed 7]
 */
async function main(): Promise<void> {
  const mode = modeFromArgs();
  const seed = numberArg('seed', 7);
  const { items, questions } = recordCatalogue(seed, numberArg('records', 2000), numberArg('questions', 2000));
  const asked = questions.filter((q) => q.value !== null);
  const fields = new Set(asked.map((q) => `${q.item.split('-')[0]}.${q.field}`));
  console.log(
    `Records: ${items.length} records, ${questions.length} questions (${asked.length} for a field the record has, ${fields.size} fields); seed ${seed}; ${mode}; ${machine()}`,
  );
  const service = await startService(mode);
  try {
    const api = await Api.withProject(service);
    await api.upsertAll(items, { collection: { slug: 'records', name: 'Generated records' } });
    let containsValue = 0;
    let firstSource = 0;
    let notStated = 0;
    const misses = new Map<string, number>();
    const latencies: number[] = [];
    for (const q of questions) {
      const t = performance.now();
      const { data } = await api.call<{ data: QaAnswer }>('POST', '/query', { text: q.text, collections: ['records'] });
      latencies.push(performance.now() - t);
      if (q.value === null) {
        if (/does not state/.test(data.text) && data.sources[0]?.item_id === q.item) notStated++;
        else if (process.env.RECORDS_VERBOSE) console.log(`STATED ${q.text} -> ${data.text.slice(0, 160)}`);
        continue;
      }
      const hit = looseText(data.text).includes(looseText(q.value));
      if (hit) containsValue++;
      else misses.set(q.field, (misses.get(q.field) ?? 0) + 1);
      if (data.sources[0]?.item_id === q.item) firstSource++;
      if (!hit && process.env.RECORDS_VERBOSE) console.log(`MISS ${q.field}: ${q.text} -> ${data.text.slice(0, 160)}`);
    }
    latencies.sort((a, b) => a - b);
    const n = asked.length;
    const missing = questions.length - n;
    console.log('| metric | value |');
    console.log('|---|---|');
    console.log(`| answer contains the asked value | ${(containsValue / n).toFixed(3)} |`);
    console.log(`| first source is the record asked about | ${(firstSource / n).toFixed(3)} |`);
    console.log(`| field the record lacks: answered "does not state", citing the record | ${missing ? (notStated / missing).toFixed(3) : '-'} (${missing} questions) |`);
    console.log(`| POST /v1/query p50 / p99 ms | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} |`);
    if (misses.size)
      console.log(
        `misses by field: ${[...misses]
          .sort((a, b) => b[1] - a[1])
          .map(([f, c]) => `${f} ${c}`)
          .join(', ')}`,
      );
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
