import { jsonl, looseText, QaAnswer, QaContext, QaQuestion } from './lib/data';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * Answer quality on the SQuAD train subset (920 paragraphs, 4,639 questions) through POST /v1/query: the share of
 * answers that contain a gold answer, and the share whose first source is the gold paragraph.
 *   node dist/bench/squad.js [--distributed] [--limit N]
 */

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const li = process.argv.indexOf('--limit');
  const contexts = jsonl<QaContext>('squad-train-subset/contexts.jsonl');
  let questions = jsonl<QaQuestion>('squad-train-subset/questions.jsonl');
  if (li > 0) questions = questions.slice(0, Number(process.argv[li + 1]));
  console.log(`SQuAD subset: ${contexts.length} paragraphs, ${questions.length} questions; ${mode}; ${machine()}`);
  const service = await startService(mode);
  try {
    const api = await Api.withProject(service);
    await api.upsertAll(
      contexts.map((c) => ({ id: c._id, data: { title: c.title, text: c.text } })),
      { collection: { slug: 'squad', name: 'SQuAD paragraphs' } },
    );
    let containsGold = 0;
    let firstSourceGold = 0;
    let saidUnknown = 0;
    const latencies: number[] = [];
    for (const q of questions) {
      const t = performance.now();
      const { data } = await api.call<{ data: QaAnswer }>('POST', '/query', { text: q.question, collections: ['squad'] });
      latencies.push(performance.now() - t);
      const answer = looseText(data.text);
      if (q.answers.some((a) => answer.includes(looseText(a)))) containsGold++;
      if (data.sources[0]?.item_id === q.context_id) firstSourceGold++;
      if (data.sources.length === 0) saidUnknown++;
    }
    latencies.sort((a, b) => a - b);
    const n = questions.length;
    console.log('| metric | value |');
    console.log('|---|---|');
    console.log(`| answer contains a gold answer | ${(containsGold / n).toFixed(3)} |`);
    console.log(`| first source is the gold paragraph | ${(firstSourceGold / n).toFixed(3)} |`);
    console.log(`| answered "not in the data" | ${(saidUnknown / n).toFixed(3)} |`);
    console.log(`| POST /v1/query p50 / p99 ms | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} |`);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
