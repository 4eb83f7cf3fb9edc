import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from './root';

/** The evaluation data beside the repository (../shared/data), read as a user would load it. */
export const DATA = resolve(repoRoot(), '..', 'shared', 'data');

/** The text of a data file; a missing one stops the benchmark with a message that says where it was looked for. */
function dataFile(path: string): string {
  const file = join(DATA, path);
  if (!existsSync(file)) {
    console.error(`${file} not found: benchmarks read their evaluation data from ../shared/data beside the repository`);
    process.exit(2);
  }
  return readFileSync(file, 'utf8');
}

export function jsonl<T>(path: string): T[] {
  return dataFile(path)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** SciFact's abstracts as items (id, title and text). */
export function scifactItems(): Array<{ id: string; data: { title: string; text: string } }> {
  return jsonl<{ _id: string; title: string; text: string }>('scifact/corpus.jsonl').map((d) => ({ id: d._id, data: { title: d.title, text: d.text } }));
}

/** SciFact's training questions, as written. */
export function scifactQuestions(): string[] {
  return jsonl<{ text: string }>('scifact/queries.train.jsonl').map((q) => q.text);
}

export function qrels(path: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const lines = dataFile(path).split('\n').slice(1);
  for (const line of lines) {
    const [q, doc, score] = line.trim().split(/\s+/);
    if (!q || !doc) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(doc, Number(score));
  }
  return out;
}

/** nDCG@k with graded relevance (BEIR's definition). */
export function ndcgAt(ranked: string[], relevant: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, id, i) => sum + ((relevant.get(id) ?? 0) > 0 ? (2 ** (relevant.get(id) ?? 0) - 1) / Math.log2(i + 2) : 0), 0);
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, rel, i) => sum + (2 ** rel - 1) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(ranked: string[], relevant: Map<string, number>, k: number): number {
  const rel = [...relevant.entries()].filter(([, r]) => r > 0).map(([id]) => id);
  if (rel.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return rel.filter((id) => top.has(id)).length / rel.length;
}

/** The question-answering sets (SQuAD-shaped): a paragraph, a question with its gold answers and paragraph. */
export interface QaContext {
  _id: string;
  title: string;
  text: string;
}
export interface QaQuestion {
  id: string;
  question: string;
  context_id: string;
  answers: string[];
}
/** The part of an answer (POST /v1/query) the QA benchmarks read. */
export interface QaAnswer {
  text: string;
  sources: Array<{ index: number; item_id: string }>;
}

/** Text compared loosely: lowercase, punctuation and Markdown as spaces. */
export function looseText(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
