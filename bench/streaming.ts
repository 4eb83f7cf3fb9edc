import { MessagesApiStub } from '../test/stand-ins/messages-api.stub';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * What streaming costs: the same questions answered by Claude (the Messages API played by the local stand-in, which
 * sends its whole stream at once, so the figures are the service's own work) as JSON and as Server-Sent Events,
 * with the time to the first `delta` and to `done`, and the number of deltas.
 *   npm run build:stand-ins && node dist-test/bench/streaming.js [--distributed] [--questions 50] [--answer-chars 3000]
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const questions = arg('questions', 50);
  const answerChars = arg('answer-chars', 3000);
  const stub = new MessagesApiStub();
  const sentence = 'The shop opens at nine in the morning and closes at five in the afternoon, except on Sundays. ';
  stub.otherwise({ kind: 'answer', blocks: [{ text: sentence.repeat(Math.ceil(answerChars / sentence.length)).slice(0, answerChars), cite: [0] }] });
  const service = await startService(modeFromArgs(), { ANTHROPIC_API_KEY: 'sk-bench', ANTHROPIC_BASE_URL: await stub.start(), RATE_LIMIT_PER_MINUTE: '100000' });
  try {
    const api = await Api.withProject(service);
    await api.upsertAll([{ id: 'hours', data: { title: 'Opening hours', text: 'The shop opens at nine in the morning and closes at five.' } }]);
    const ask = (accept: string) =>
      fetch(`${service.url}/v1/query`, {
        method: 'POST',
        headers: { 'Api-Key': api.key, 'Content-Type': 'application/json', Accept: accept },
        body: JSON.stringify({ text: 'When does the shop open?' }),
      });
    const json: number[] = [];
    const first: number[] = [];
    const done: number[] = [];
    let deltas = 0;
    for (let i = 0; i < questions; i++) {
      let t = performance.now();
      const r = await ask('application/json');
      await r.text();
      if (r.status !== 201) throw new Error(`JSON answer ${r.status}`);
      json.push(performance.now() - t);
      t = performance.now();
      const s = await ask('text/event-stream');
      const reader = s.body!.getReader();
      let text = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += new TextDecoder().decode(chunk.value);
        if (first.length === i && text.includes('event: delta')) first.push(performance.now() - t);
      }
      done.push(performance.now() - t);
      if (!text.includes('event: done')) throw new Error(`stream without done: ${text.slice(-300)}`);
      deltas += (text.match(/event: delta/g) ?? []).length;
    }
    const p = (xs: number[], q: number) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        q,
      ).toFixed(0);
    console.log(`streaming: ${questions} questions, answers of ${answerChars} characters; ${modeFromArgs()}; ${machine()}`);
    console.log('| answer | p50 ms | p95 ms | deltas an answer |');
    console.log('|---|---|---|---|');
    console.log(`| JSON (201) | ${p(json, 50)} | ${p(json, 95)} | |`);
    console.log(`| stream, first delta | ${p(first, 50)} | ${p(first, 95)} | |`);
    console.log(`| stream, done | ${p(done, 50)} | ${p(done, 95)} | ${(deltas / questions).toFixed(0)} |`);
  } finally {
    await service.stop();
    await stub.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
