import { jsonl, QaAnswer, QaContext, QaQuestion } from './lib/data';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * Answer quality per language through POST /v1/query with the extractive answerer: for each set, the share of
 * questions whose first source is the paragraph that answers them, and the share of answers that contain a gold
 * answer; and, for retrieval alone, the share whose first POST /v1/search hit is that paragraph. Each set is loaded into a project of its own through POST /v1/upserts (languages detected).
 *   node dist/bench/multilingual.js [--distributed] [--limit N] [--sets zh,ar,en]
 */

const SETS: Record<string, { name: string; path: string }> = {
  zh: { name: 'zh-cmrc2018-dev (Chinese)', path: 'multilingual-qa/zh-cmrc2018-dev' },
  ar: { name: 'ar-arcd-test (Arabic)', path: 'multilingual-qa/ar-arcd-test' },
  en: { name: 'squad-train-subset (English)', path: 'squad-train-subset' },
};

const norm = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim();

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const limit = arg('--limit') ? Number(arg('--limit')) : Infinity;
  const sets = (arg('--sets') ?? 'zh,ar,en').split(',');
  console.log(`multilingual QA; ${mode}; ${machine()}`);
  const service = await startService(mode);
  const rows: string[] = [];
  try {
    for (const key of sets) {
      const set = SETS[key];
      if (!set) throw new Error(`unknown set ${key} (one of ${Object.keys(SETS).join(', ')})`);
      const contexts = jsonl<QaContext>(`${set.path}/contexts.jsonl`);
      const questions = jsonl<QaQuestion>(`${set.path}/questions.jsonl`).slice(0, limit);
      const api = await Api.withProject(service);
      await api.upsertAll(
        contexts.map((c) => ({ id: c._id, data: { title: c.title, text: c.text } })),
        { collection: { slug: 'paragraphs' } },
      );
      let firstSource = 0;
      let containsGold = 0;
      let searchFirst = 0;
      const latencies: number[] = [];
      for (const q of questions) {
        const t = performance.now();
        const { data } = await api.call<{ data: QaAnswer }>('POST', '/query', { text: q.question });
        latencies.push(performance.now() - t);
        const answer = norm(data.text);
        if (q.answers.some((a) => norm(a) && answer.includes(norm(a)))) containsGold++;
        if (data.sources[0]?.item_id === q.context_id) firstSource++;
        const hits = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: q.question, limit: 1 });
        if (hits.data[0]?.item_id === q.context_id) searchFirst++;
      }
      latencies.sort((a, b) => a - b);
      const n = questions.length;
      rows.push(
        `| ${set.name} | ${contexts.length} | ${n} | ${(firstSource / n).toFixed(3)} | ${(containsGold / n).toFixed(3)} | ${(searchFirst / n).toFixed(3)} | ${percentile(latencies, 50).toFixed(1)} |`,
      );
      console.log(rows[rows.length - 1]);
    }
    console.log('\n| set | paragraphs | questions | first source | contains gold | first search hit | /v1/query p50 ms |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
