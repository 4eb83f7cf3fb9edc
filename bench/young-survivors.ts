import { spawnSync } from 'node:child_process';
import { machine } from './lib/service';

/**
 * What survives V8's young-generation collections when a row kept in memory is copied with a member added, the way a
 * search's hit was made from its chunk's row (`{ ...row, score }`), against `Object.assign` and a literal built member
 * by member. Each way runs in a Node process of its own with `--trace-gc-nvp`: 10 copies a round, each made into JSON
 * and dropped, then the mean of the last 20 young collections' survivors and pauses. No service is started.
 *   node dist/bench/young-survivors.js
 */
const WAYS = {
  'spread, then a member': '{ ...r, score: s }',
  'spread, a member replaced': "{ ...r, text: '' }",
  'Object.assign': 'Object.assign({}, r, { score: s })',
  'a literal, member by member': '{ id: r.id, item_id: r.item_id, metadata: r.metadata, text: r.text, n: r.n, score: s }',
};

function program(copy: string): string {
  return `
const kept = [];
for (let i = 0; i < 5000; i++) kept.push({ id: String(i), item_id: 'item' + i, collection: 'c', tenant: null, url: null, metadata: { a: i }, text: 'some text '.repeat(50) + i, language: 'en', n: i % 3 });
for (let i = 0; i < 20; i++) new Array(100000).fill({});
let sink = 0;
for (let k = 0; k < 200000; k++) {
  const out = [];
  for (let j = 0; j < 10; j++) { const r = kept[(k * 7 + j * 131) % kept.length]; const s = Math.random(); out.push(${copy}); }
  sink += JSON.stringify(out).length;
}`;
}

function main(): void {
  console.log(`young survivors of copies with a member added; ${machine()}`);
  console.log('| copy | code | survived a collection KB (mean of the last 20) | pause ms |');
  console.log('|---|---|---|---|');
  for (const [name, code] of Object.entries(WAYS)) {
    const run = spawnSync(process.execPath, ['--trace-gc-nvp', '-e', program(code)], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`);
    const scavenges = run.stdout
      .split('\n')
      .filter((line) => line.includes(' gc=s '))
      .slice(-20);
    const field = (line: string, key: string) => Number(new RegExp(`\\b${key}=([0-9.]+)`).exec(line)?.[1] ?? NaN);
    const mean = (key: string) => scavenges.reduce((sum, line) => sum + field(line, key), 0) / scavenges.length;
    console.log(`| ${name} | \`${code}\` | ${(mean('new_space_survived') / 1024).toFixed(0)} | ${mean('pause').toFixed(2)} |`);
  }
}

main();
