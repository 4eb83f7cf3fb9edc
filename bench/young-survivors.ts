import { spawnSync } from 'node:child_process';
import { collectionMeans, isYoungCollection } from './lib/gc-trace';
import { machine } from './lib/service';

/**
 * What survives V8's young-generation collections when a row kept in memory is copied with a member added, the way a
 * search's hit was made from its chunk's row (`{ ...row, score }`), against `Object.assign` and a literal built member
 * by member. Each way runs in a Node process of its own with `--trace-gc-nvp`: 10 copies a round, each made into JSON
 * and dropped, then the mean of the last 20 young collections' survivors and pauses. No service is started.
 *
 * Then what a copying function's arrays and objects leave once the same function's copies of a load were kept (as
 * the in-process bus's `jsonCopy` did with accepted and index batches): V8 remembers per array or object literal
 * whether what it made lived long, and from then on makes that literal's values in the old generation, where all they
 * reference outlives young collections; `new Array(n)` and an empty object literal filled member by member are not
 * followed.
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

/** A copying function, first used for 400,000 copies that are kept (a load), then for copies dropped at once. */
const ONCE_KEPT = {
  'an array literal, pushed': 'const c = []; for (let i = 0; i < a.length; i++) c.push(a[i]); return c;',
  '`new Array(n)`, assigned': 'const c = new Array(a.length); for (let i = 0; i < a.length; i++) c[i] = a[i]; return c;',
  'an object literal with members': 'return { id: a[0].id, score: a[0].score, text: a[0].text };',
  'an empty object literal, then its members': 'const c = {}; c.id = a[0].id; c.score = a[0].score; c.text = a[0].text; return c;',
};

function onceKept(copy: string): string {
  return `
const copy = (a) => { ${copy} };
const kept = [];
for (let i = 0; i < 400000; i++) kept.push(copy([{ id: 'k' + i, score: i, text: { t: i } }, { id: 'l' + i }]));
globalThis.kept = kept;
let sink = 0;
for (let k = 0; k < 300000; k++) {
  const hits = [];
  for (let j = 0; j < 10; j++) hits.push({ id: 'h' + k + j, score: Math.random(), text: { t: 'x'.repeat(j) + k } });
  sink += JSON.stringify(copy(hits)).length;
}`;
}

/** `program` run with `--trace-gc-nvp`: the mean of its last 20 young collections' survivors (KB) and pauses (ms). */
function scavenges(name: string, program: string): { survived: number; pause: number } {
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', '-e', program], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`);
  return collectionMeans(run.stdout.split('\n').filter(isYoungCollection).slice(-20));
}

function main(): void {
  console.log(`young survivors of copies with a member added; ${machine()}`);
  console.log('| copy | code | survived a collection KB (mean of the last 20) | pause ms |');
  console.log('|---|---|---|---|');
  for (const [name, code] of Object.entries(WAYS)) {
    const { survived, pause } = scavenges(name, program(code));
    console.log(`| ${name} | \`${code}\` | ${survived.toFixed(0)} | ${pause.toFixed(2)} |`);
  }
  console.log('');
  console.log('| a copying function whose copies of a load were kept | survived a collection KB (mean of the last 20) | pause ms |');
  console.log('|---|---|---|');
  for (const [name, code] of Object.entries(ONCE_KEPT)) {
    const { survived, pause } = scavenges(name, onceKept(code));
    console.log(`| ${name} | ${survived.toFixed(0)} | ${pause.toFixed(2)} |`);
  }
}

main();
