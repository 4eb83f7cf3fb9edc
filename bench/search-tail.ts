import { numberArg } from './lib/args';
import { scifactItems, scifactQuestions } from './lib/data';
import { machine, modeFromArgs, percentile, projectHolding, startService } from './lib/service';

/**
 * Whether a search's slow tail is its question's work or something else's: SciFact's abstracts indexed, then every
 * training question searched (top 10) once a round, `--rounds` rounds. Prints each round's p50 and p99 and those of
 * each question's fastest time over the rounds: a question slow in every round is slow for its work; one slow in a
 * single round met something else (a garbage collection, a timer, another process).
 *   node dist/bench/search-tail.js [--distributed] [--rounds 3]
 */
async function main(): Promise<void> {
  const mode = modeFromArgs();
  const rounds = numberArg('rounds', 3);
  const items = scifactItems();
  const questions = scifactQuestions();
  console.log(`search tail: scifact, ${items.length} items, ${questions.length} questions, ${rounds} rounds; ${mode}; ${machine()}`);
  const service = await startService(mode);
  try {
    const api = await projectHolding(service, items, questions, 100);
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
    const row = (name: string, list: number[]) => {
      const sorted = [...list].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      const p99 = percentile(sorted, 99);
      console.log(`| ${name} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${(p99 / p50).toFixed(1)} |`);
    };
    console.log('| searches | p50 ms | p99 ms | p99/p50 |');
    console.log('|---|---|---|---|');
    times.forEach((round, r) => row(`round ${r + 1}`, round));
    row(
      "each question's fastest",
      questions.map((_, k) => Math.min(...times.map((round) => round[k]))),
    );
  } finally {
    await service.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
