import { RetrievedChunk } from '@askdata/contracts';
import { analyze, splitSentences } from '@askdata/common';

export interface Evidence {
  /** Index of the chunk in the retrieved list. */
  chunk: number;
  sentence: string;
  score: number;
}

export interface ExtractiveResult {
  /** Chosen sentences, best first, each with its chunk; empty when the data does not answer the question. */
  evidence: Evidence[];
}

export interface ExtractiveOptions {
  /** Share of the question's information (IDF-weighted) the best sentence must cover. */
  minCoverage: number;
  maxSentences: number;
}

const DEFAULTS: ExtractiveOptions = { minCoverage: 0.34, maxSentences: 2 };

interface Candidate {
  chunk: number;
  position: number;
  text: string;
  terms: string[];
}

/**
 * Picks the sentences of the retrieved chunks that best answer the question: how much of the question's
 * information they cover (terms weighted by IDF over the candidate sentences), how close together the matched
 * terms are, where the sentence sits, and how well its chunk ranked. Says nothing when nothing covers enough.
 */
export function extractAnswer(question: string, chunks: RetrievedChunk[], options: Partial<ExtractiveOptions> = {}): ExtractiveResult {
  const opts = { ...DEFAULTS, ...options };
  const qTerms = [...new Set(analyze(question))];
  if (qTerms.length === 0 || chunks.length === 0) return { evidence: [] };

  const candidates: Candidate[] = [];
  chunks.forEach((c, chunk) => {
    splitSentences(c.text).forEach((text, position) => candidates.push({ chunk, position, text, terms: analyze(text) }));
  });
  const sentenceFreq = new Map<string, number>();
  for (const c of candidates) for (const t of new Set(c.terms)) sentenceFreq.set(t, (sentenceFreq.get(t) ?? 0) + 1);
  const n = candidates.length;
  const idf = (t: string) => Math.log(1 + (n + 1) / ((sentenceFreq.get(t) ?? 0) + 0.5));
  // Terms absent from every sentence still count, at half weight: a question about something the data never
  // mentions cannot be well covered, while a chatty question with a few extra words still can.
  const total = qTerms.reduce((s, t) => s + (sentenceFreq.has(t) ? idf(t) : 0.5 * idf(t)), 0);

  const scored = candidates.map((c) => {
    const present = new Set(c.terms);
    const matched = qTerms.filter((t) => present.has(t));
    const coverage = matched.reduce((s, t) => s + idf(t), 0) / total;
    const score = coverage + 0.1 * proximity(c.terms, new Set(matched)) + 0.05 / (1 + c.position) + 0.08 / (1 + c.chunk);
    return { ...c, coverage, score };
  });
  scored.sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (!best || best.coverage < opts.minCoverage) return { evidence: [] };

  const chosen = [best];
  for (const s of scored.slice(1)) {
    if (chosen.length >= opts.maxSentences) break;
    // A second sentence only when it is nearly as good, or the sentence right after the best one in its chunk.
    const follows = s.chunk === best.chunk && s.position === best.position + 1 && s.coverage >= opts.minCoverage / 2;
    if (s.score >= best.score * 0.85 || follows) chosen.push(s);
  }
  return { evidence: chosen.map((c) => ({ chunk: c.chunk, sentence: c.text, score: c.score })) };
}

/** 1 when the matched terms sit next to each other, falling towards 0 as they spread out. */
function proximity(terms: string[], matched: Set<string>): number {
  if (matched.size < 2) return matched.size ? 1 : 0;
  let best = Infinity;
  const last = new Map<string, number>();
  terms.forEach((t, i) => {
    if (!matched.has(t)) return;
    last.set(t, i);
    if (last.size === matched.size) best = Math.min(best, i - Math.min(...last.values()) + 1);
  });
  return best === Infinity ? 0 : matched.size / best;
}

const PRONOUNS = new Set(['it', 'its', 'they', 'them', 'their', 'this', 'that', 'these', 'those', 'he', 'she', 'his', 'her', 'one', 'ones', 'there', 'then']);

/**
 * A follow-up made to stand alone without a model: when it is short or leans on pronouns ("and when did it
 * start?"), the previous question's informative words are carried into it.
 */
export function carryContext(question: string, previousQuestions: string[]): string {
  const previous = previousQuestions[previousQuestions.length - 1];
  if (!previous) return question;
  const words = question.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const content = analyze(question);
  if (content.length >= 5 && !words.some((w) => PRONOUNS.has(w))) return question;
  const have = new Set(content);
  const carried = (previous.match(/[\p{L}\p{N}'-]+/gu) ?? []).filter((w) => {
    const [stem] = analyze(w);
    return stem !== undefined && !have.has(stem) && !PRONOUNS.has(w.toLowerCase());
  });
  return carried.length ? `${question} (${carried.join(' ')})` : question;
}
