import { join, resolve } from 'node:path';
import { queryTerms } from '@askdata/common';
import { numberArg } from './lib/args';
import { jsonl } from './lib/data';
import { machine } from './lib/service';

type SnippetModule = typeof import('../apps/retrieval/src/analysis/snippet');

/**
 * What a search's snippets cost in retrieval, without the service around them: SciFact's abstracts cut into pieces
 * (`cut`, done once a text is first found) and a question's snippet of a text from its pieces (`snippet`, ten a
 * search), in µs. With ASKDATA_DIST=<other build>/dist the other build's functions take turns with this one's, in
 * one process, on the same texts and questions.
 *   node dist/bench/snippets.js [--rounds N]
 */
function main(): void {
  const rounds = numberArg('rounds', 3);
  const texts = jsonl<{ title: string; text: string }>('scifact/corpus.jsonl')
    .slice(0, 3000)
    .map((d) => `${d.title}\n${d.text}`);
  const questions = jsonl<{ text: string }>('scifact/queries.train.jsonl').map((q) => queryTerms(q.text, 'en'));
  const builds: Array<[string, SnippetModule]> = [['this build', require('../apps/retrieval/src/analysis/snippet') as SnippetModule]];
  if (process.env.ASKDATA_DIST) {
    const other = resolve(process.env.ASKDATA_DIST);
    builds.push([other, require(join(other, 'apps', 'retrieval', 'src', 'analysis', 'snippet.js')) as SnippetModule]);
  }
  console.log(`snippets: ${texts.length} SciFact texts, ${questions.length} questions, ${rounds} rounds; ${machine()}`);
  console.log('| build | round | cut µs a text | snippet µs from pieces |');
  console.log('|---|---|---|---|');
  const SNIPPETS = 50_000;
  for (let round = 1; round <= rounds; round++) {
    for (const [name, m] of builds) {
      let t = process.hrtime.bigint();
      const pieces = texts.map((text) => m.cut(text, 'en'));
      const cutUs = Number(process.hrtime.bigint() - t) / 1000 / texts.length;
      let chars = 0;
      t = process.hrtime.bigint();
      for (let i = 0; i < SNIPPETS; i++) chars += m.snippet(texts[i % texts.length], questions[i % questions.length], 240, 'en', pieces[i % texts.length]).length;
      const snippetUs = Number(process.hrtime.bigint() - t) / 1000 / SNIPPETS;
      console.log(`| ${name} | ${round} | ${cutUs.toFixed(1)} | ${snippetUs.toFixed(2)} (${chars} characters) |`);
    }
  }
}

main();
