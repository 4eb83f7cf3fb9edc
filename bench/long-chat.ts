import { MessagesApiStub } from '../test/stand-ins/messages-api.stub';
import { Api, machine, modeFromArgs, percentile, startService } from './lib/service';

/**
 * A long chat with Claude answering (the Messages API played by the local stand-in, answering at once): how big the
 * request to the model gets as follow-ups pile up, how much of it the prompt cache reads, and the service's own
 * latency per follow-up, with the history bounded by HISTORY_TOKEN_BUDGET and with it unbounded (as before).
 *   npm run build:stand-ins && node dist-test/bench/long-chat.js [--distributed] [--turns 50] [--answer-chars 1500]
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function run(budget: number, turns: number, answerChars: number): Promise<void> {
  const stub = new MessagesApiStub();
  const answer = 'The shop opens at nine in the morning and closes at five in the afternoon, except on Sundays. '
    .slice(0, 95)
    .repeat(Math.ceil(answerChars / 95))
    .slice(0, answerChars);
  stub.otherwise({ kind: 'answer', blocks: [{ text: answer, cite: [0] }] });
  const url = await stub.start();
  const service = await startService(modeFromArgs(), {
    ANTHROPIC_API_KEY: 'sk-bench',
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_MODEL: 'claude-bench',
    REWRITE_MODEL: 'claude-bench-small',
    HISTORY_TOKEN_BUDGET: String(budget),
  });
  try {
    const api = await Api.withProject(service);
    await api.upsertAll([{ id: 'hours', data: { title: 'Opening hours', text: 'The shop opens at nine in the morning and closes at five.' } }]);
    const headers = { 'Api-Key': api.key, 'Content-Type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${service.url}/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { data: { id: string } };
    };
    const chat = await post('/chats', { text: 'When does the shop open?' });
    const times: number[] = [];
    for (let i = 0; i < turns; i++) {
      const t = performance.now();
      await post(`/chats/${chat.data.id}/messages`, { text: `And on day ${i + 1} of the month?` });
      times.push(performance.now() - t);
    }
    const answers = stub.requests.filter((r) => r.body.model === 'claude-bench');
    // Standalone: the gateway's /metrics covers the process, conversation's model usage included.
    const metrics = modeFromArgs() === 'standalone' ? await (await fetch(`${service.url}/metrics`)).text() : '';
    const tokens = (kind: string) => Number(new RegExp(`askdata_model_tokens_total\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`).exec(metrics)?.[1] ?? NaN);
    const cached = tokens('cache_read') / (tokens('cache_read') + tokens('cache_write') + tokens('input'));
    const at = (turn: number) => answers[Math.min(turn, answers.length - 1)];
    const kb = (turn: number) => (at(turn).bytes / 1024).toFixed(1);
    console.log(
      `| ${budget >= 1e6 ? 'unbounded' : budget} | ${kb(1)} | ${kb(10)} | ${kb(turns)} | ${(Math.max(...answers.map((r) => r.bytes)) / 1024).toFixed(1)} | ` +
        `${(100 * cached).toFixed(0)}% | ${percentile(
          times.sort((a, b) => a - b),
          50,
        ).toFixed(0)} | ${percentile(times, 95).toFixed(0)} |`,
    );
  } finally {
    await service.stop();
    await stub.stop();
  }
}

async function main(): Promise<void> {
  const turns = arg('turns', 50);
  const answerChars = arg('answer-chars', 1500);
  console.log(`long chat: ${turns} follow-ups, answers of ${answerChars} characters; ${modeFromArgs()}; ${machine()}`);
  console.log('| HISTORY_TOKEN_BUDGET | request KB, follow-up 1 | 10 | last | largest | input read from cache | p50 ms | p95 ms |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const budget of [16000, 4000, 1000000]) await run(budget, turns, answerChars);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
