import { Inject, Injectable, Optional } from '@nestjs/common';
import { RetrievedChunk } from '@askdata/contracts';
import { AnswerGenerator, AnswerRequest, ChatTurn, GeneratedAnswer, notInData } from './answer-generator';
import { AnswerSegment, composeAnswer } from './citations';
import { carriedWords, standaloneQuestion } from './follow-up';
import { answerFromRecords, RecordAnswer } from './record-fields';
import { LEANS_BACK, ScoredSentence, scoreSentences } from './sentence-scores';

// How sentences are scored is in sentence-scores.ts.

export interface ExtractiveOptions {
  /** Share of the question's information (IDF-weighted terms) the best sentence must cover to be an answer. */
  minCoverage: number;
  /** Most sentences in an answer. */
  maxSentences: number;
  /** A supporting sentence must score at least this share of the best sentence's score. */
  supportRatio: number;
}

export const EXTRACTIVE_DEFAULTS: ExtractiveOptions = { minCoverage: 0.33, maxSentences: 3, supportRatio: 0.8 };

export const EXTRACTIVE_OPTIONS = Symbol('EXTRACTIVE_OPTIONS');

/** The sentences chosen to answer, in the order they are written; none when the data does not answer. */
export interface Extraction {
  sentences: ScoredSentence[];
  /** The highest coverage of the question by any sentence (0 when there was nothing to read). */
  coverage: number;
}

/** Share of `minCoverage` a sentence must cover to be chosen once some sentence covers `minCoverage`. */
const ELIGIBLE_SHARE = 0.75;
/** A sentence opening with one of these (or "the") likely goes on about what the sentence before it said. */
const GOES_ON = /^["'“(]?(he|she|it|they|this|these|that|those|the|his|her|its|their|there|such|both)\b/i;

/**
 * Picks the sentences that answer the question: the best-scoring one among those that cover enough of the
 * question; the sentence before it when it leans on it ("He ..."), the one after it when that one goes on about
 * it ("The ...", "It ..."); then nearly as good sentences, up to `maxSentences`. They are written in reading order
 * within a chunk, chunks in the order of their best sentence, so the chunk of the best sentence is cited first.
 */
export function extractAnswer(question: string, chunks: RetrievedChunk[], carried: string[] = [], options: Partial<ExtractiveOptions> = {}, language = 'en'): Extraction {
  const opts = { ...EXTRACTIVE_DEFAULTS, ...options };
  const scored = scoreSentences(question, chunks, carried, language);
  const coverage = scored.reduce((max, s) => Math.max(max, s.coverage), 0);
  // The data answers when some sentence covers enough of the question; the answer is then the best-scoring
  // sentence among those that cover a fair part of it, which need not be the one that covers the most.
  if (coverage < opts.minCoverage) return { sentences: [], coverage };
  const eligible = scored.filter((s) => s.coverage >= opts.minCoverage * ELIGIBLE_SHARE).sort((a, b) => b.score - a.score);
  const best = eligible[0];

  const chosen = [best];
  const add = (s: ScoredSentence | undefined) => {
    if (s && chosen.length < opts.maxSentences && !chosen.includes(s)) chosen.push(s);
  };
  const neighbour = (d: number) => scored.find((s) => s.chunk === best.chunk && s.position === best.position + d);
  if (LEANS_BACK.test(best.text)) add(neighbour(-1));
  const next = neighbour(1);
  if (next && GOES_ON.test(next.text)) add(next);
  for (const s of eligible) if (s.score >= best.score * opts.supportRatio) add(s);

  const order = new Map<number, number>();
  chosen.forEach((s, i) => order.has(s.chunk) || order.set(s.chunk, i));
  chosen.sort((a, b) => order.get(a.chunk)! - order.get(b.chunk)! || a.position - b.position);
  return { sentences: chosen, coverage };
}

/** Escapes what would make the start of a quoted sentence a Markdown block (a heading, a list item, a quote). */
function inline(sentence: string): string {
  return sentence.replace(/^([#>+*=|-])/, '\\$1').replace(/^(\d{1,9})([.)]\s)/, '$1\\$2');
}

/** Writes the chosen sentences as segments, one per sentence, each citing its chunk. */
export function toSegments(sentences: ScoredSentence[]): AnswerSegment[] {
  return sentences.map((s, i) => ({ text: `${i ? ' ' : ''}${inline(s.text)}`, citations: [{ chunk: s.chunk, quote: s.text }] }));
}

/**
 * A record answer as segments: the record's title, then the field's lines (every element's, for a field of an
 * array) quoted with the record as source; or that the record does not state what was asked, naming it.
 */
export function recordSegments(answer: RecordAnswer): AnswerSegment[] {
  const { record } = answer;
  if (answer.kind === 'missing') {
    const name = record.title ?? record.fields[0].line;
    return [
      { text: `The record "${name}"`, citations: [{ chunk: record.chunk, quote: name }] },
      { text: ` does not state the ${answer.asked.join(' ')}.`, citations: [] },
    ];
  }
  const quote = answer.lines.join('; ');
  return [
    ...(record.title ? [{ text: `${inline(record.title)} — `, citations: [] }] : []),
    { text: record.title ? quote : inline(quote), citations: [{ chunk: record.chunk, quote }] },
  ];
}

/**
 * The language to read a question in: its own when some retrieved chunk is in it, else the best chunk's (a
 * question in another language than the data then still meets it by the names and numbers they share).
 */
export function matchingLanguage(language: string, chunks: RetrievedChunk[]): string {
  if (chunks.length === 0 || chunks.some((c) => (c.language ?? 'en') === language)) return language;
  return chunks[0].language ?? 'en';
}

/**
 * The answer generator that needs no model: a field question about a record gets the field's line
 * (`record-fields.ts`); otherwise it quotes the sentences of the retrieved chunks that best answer the question,
 * each followed by its citation, and says plainly, in the question's language, that the data does not say when no
 * sentence covers enough of the question. It never writes a word of its own besides that.
 */
@Injectable()
export class ExtractiveAnswerer implements AnswerGenerator {
  readonly kind = 'extractive';
  readonly readsFieldDescriptions = true;
  private readonly options: ExtractiveOptions;

  constructor(@Optional() @Inject(EXTRACTIVE_OPTIONS) options?: Partial<ExtractiveOptions>) {
    this.options = { ...EXTRACTIVE_DEFAULTS, ...options };
  }

  generate(request: AnswerRequest): Promise<GeneratedAnswer> {
    return Promise.resolve(this.answer(request));
  }

  rewrite(question: string, history: ChatTurn[]): Promise<string> {
    return Promise.resolve(standaloneQuestion(question, history));
  }

  private answer(request: AnswerRequest): GeneratedAnswer {
    const record = answerFromRecords(request.question, request.chunks, request.fields);
    if (record) return composeAnswer(recordSegments(record));
    const carried = carriedWords(request.question, request.history);
    const language = request.language ?? 'en';
    const { sentences } = extractAnswer(request.question, request.chunks, carried, this.options, matchingLanguage(language, request.chunks));
    if (sentences.length === 0) return { text: notInData(language), citations: [] };
    return composeAnswer(toSegments(sentences));
  }
}
