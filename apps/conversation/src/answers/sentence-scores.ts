import { RetrievedChunk } from '@askdata/contracts';
import { gramsOf, sentencesIn } from '@askdata/common';
import { related, Token, tokenize } from './terms';

/** Scoring the retrieved chunks' sentences against a question, for the extractive answerer to choose from. */

/** A sentence of a chunk, scored against the question. */
export interface ScoredSentence {
  /** Index of the chunk in the retrieved list. */
  chunk: number;
  /** Index of the sentence in its chunk. */
  position: number;
  text: string;
  /** Share of the question's information the sentence covers, 0..1. */
  coverage: number;
  /** How well the sentence answers the question, its chunk's retrieval score included. */
  score: number;
}

/** Weight of a word carried over from earlier questions, next to the question's own words. */
const CARRIED_WEIGHT = 0.5;
/** Weight of a name in the question (a capitalised word) when judging whether the data answers at all. */
const NAME_WEIGHT = 2;
/** Share of its weight a question term found in no sentence keeps in the total to cover. */
const ABSENT_SHARE = 0.5;
/** Credit for a term matched only through a related form ("creator" for "created"). */
const RELATED_MATCH = 0.6;
/** Credit for a term found only in the sentence before, when this one leans on it ("It ..."). */
const INHERITED_MATCH = 0.5;
/** How much the matched terms sitting close together counts. */
const PROXIMITY_WEIGHT = 0.12;
/** How much pairs of adjacent question terms found adjacent in the sentence count ("number one", "pop idols"). */
const PHRASE_WEIGHT = 0.45;
/** How much holding the kind of thing asked for (a number, a date, a name) counts. */
const ANSWER_TYPE_WEIGHT = 0.18;
const POSITION_WEIGHT = 0.03;
/** How much the chunk's retrieval score (relative to the best chunk's) counts next to the sentence's own evidence. */
const RETRIEVAL_WEIGHT = 1;

/** A sentence opening with one of these leans on the sentence before it. */
export const LEANS_BACK = /^["'“(]?(he|she|it|they|this|these|his|her|its|their|there|such|both)\b/i;

type AnswerType = 'number' | 'time' | 'person' | 'place' | null;

const NUMBER_WORDS = new Set(
  'one two three four five six seven eight nine ten eleven twelve thirteen fifteen twenty thirty forty fifty hundred hundreds thousand thousands million millions billion billions trillion dozen dozens half quarter'.split(
    ' ',
  ),
);
const MONTHS = new Set('january february march april may june july august september october november december'.split(' '));

/** What kind of thing the question asks for, from its wording. */
export function answerType(question: string): AnswerType {
  const q = question.toLowerCase();
  if (/\bhow (many|much|long|old|far|large|big|tall|high|often|fast|deep|wide|heavy)\b|\bwhat (percentage|percent|proportion|number|amount|fraction)\b/.test(q)) return 'number';
  if (/\bwhen\b|\b(what|which) (year|years|date|day|month|century|decade|era|period)\b|\bhow long ago\b/.test(q)) return 'time';
  if (/\b(who|whom|whose)\b/.test(q)) return 'person';
  if (/\bwhere\b/.test(q)) return 'place';
  return null;
}

/** Whether the sentence holds something of the type asked for that the question does not already name. */
function holdsAnswerType(type: AnswerType, tokens: Token[], questionWords: Set<string>): boolean {
  if (!type) return false;
  return tokens.some((t, i) => {
    const w = t.word.toLowerCase();
    if (questionWords.has(w)) return false;
    switch (type) {
      case 'number':
        return /\d/.test(w) || NUMBER_WORDS.has(w);
      case 'time':
        return /^(1\d{3}|20\d{2})s?$/.test(w) || /^\d{1,2}(st|nd|rd|th)$/.test(w) || MONTHS.has(w) || w === 'century';
      case 'person':
      case 'place':
        return i > 0 && /^\p{Lu}/u.test(t.word) && t.term !== null;
    }
  });
}

interface Candidate {
  chunk: number;
  position: number;
  text: string;
  tokens: Token[];
  /** The sentence's terms in order. */
  sequence: string[];
  terms: Set<string>;
}

/** Adjacent pairs of terms ("number 1"), stopwords skipped. */
function pairs(sequence: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 1; i < sequence.length; i++) out.add(`${sequence[i - 1]} ${sequence[i]}`);
  return out;
}

function candidatesOf(chunks: RetrievedChunk[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  chunks.forEach((c, chunk) => {
    const language = c.language ?? 'en';
    sentencesIn(c.text, language).forEach((text, position) => {
      // Overlapping chunks repeat sentences: each is read once, where it first appears.
      const key = text.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      const tokens = tokenize(text, language);
      const sequence = tokens.flatMap((t) => (t.term ? [t.term] : []));
      out.push({ chunk, position, text, tokens, sequence, terms: new Set(sequence) });
    });
  });
  return out;
}

/**
 * How each retrieved chunk ranked, 0..1: its score relative to the best chunk's, or, when the backend's scores
 * are not positive, its rank.
 */
function retrievalStrength(chunks: RetrievedChunk[]): number[] {
  const top = chunks.reduce((max, c) => Math.max(max, c.score), 0);
  return chunks.map((c, i) => (top > 0 ? Math.max(0, c.score) / top : 1 / (1 + i)));
}

/**
 * Scores every sentence of the retrieved chunks against the question (and `carried`, words from earlier
 * questions). `coverage` says whether the sentence is about the question at all: the share of the question's
 * information it holds, terms weighted by IDF over the candidate sentences (smoothed, so that a term in every
 * sentence still counts a little), names double, terms no sentence holds counting half towards the total, related
 * forms and terms of the sentence it leans on ("It ...") for part. `score` ranks the sentences across chunks, so
 * that the chunk holding the best evidence comes first whatever its retrieval rank: the same share with carried
 * words counting half and names single, how close together the matched terms sit, how many of the question's
 * adjacent term pairs the sentence has as adjacent pairs, whether it holds the kind of thing asked for (a number,
 * a date, a name), its position in its chunk, and its chunk's retrieval score. The question is analyzed in
 * `language`, each sentence in its chunk's.
 */
export function scoreSentences(question: string, chunks: RetrievedChunk[], carried: string[] = [], language = 'en'): ScoredSentence[] {
  const questionTokens = tokenize(question, language);
  const carriedTokens = tokenize(carried.join(' '), language);
  const weights = new Map<string, number>();
  for (const t of carriedTokens) if (t.term) weights.set(t.term, CARRIED_WEIGHT);
  for (const t of questionTokens) if (t.term) weights.set(t.term, 1);
  if (weights.size === 0) return [];
  // Whether the data answers at all: carried words count in full (a follow-up is about the earlier topic too)
  // and names double.
  const gateWeights = new Map<string, number>();
  const isName = (t: Token, i: number) => i > 0 && /^\p{Lu}/u.test(t.word);
  carriedTokens.forEach((t, i) => t.term && gateWeights.set(t.term, isName(t, i) ? NAME_WEIGHT : 1));
  questionTokens.forEach((t, i) => t.term && gateWeights.set(t.term, Math.max(gateWeights.get(t.term) ?? 0, isName(t, i) ? NAME_WEIGHT : 1)));
  const questionWords = new Set([...questionTokens, ...carriedTokens].map((t) => t.word.toLowerCase()));
  const questionPairs = pairs(questionTokens.flatMap((t) => (t.term ? [t.term] : [])));
  const type = answerType(question);

  const candidates = candidatesOf(chunks);
  const gramsMatch = language === 'en' ? undefined : gramMatcher(questionTokens);
  const strength = retrievalStrength(chunks);
  const df = new Map<string, number>();
  for (const c of candidates) for (const t of c.terms) df.set(t, (df.get(t) ?? 0) + 1);
  const n = candidates.length;
  const idf = (t: string) => Math.log(1 + (n + 1) / ((df.get(t) ?? 0) + 0.5));
  // A question term no sentence holds still counts, in part: a question about something the data never
  // mentions cannot be covered well, while a few extra words in a chatty question do not sink a good answer.
  const totalOf = (w: Map<string, number>) => [...w].reduce((sum, [t, x]) => sum + x * idf(t) * (df.has(t) ? 1 : ABSENT_SHARE), 0);
  const total = totalOf(weights);
  const gateTotal = totalOf(gateWeights);

  return candidates.map((c, ci) => {
    let covered = 0;
    let gateCovered = 0;
    const exact = new Set<string>();
    // "It began airing in 2002": a sentence that leans on the one before it is about what that one names.
    const previous = candidates[ci - 1];
    const before = previous && previous.chunk === c.chunk && previous.position === c.position - 1 && LEANS_BACK.test(c.text) ? previous : undefined;
    for (const [q, w] of weights) {
      let credit = 0;
      if (c.terms.has(q)) {
        credit = 1;
        exact.add(q);
      } else if ([...c.terms].some((t) => related(q, t)) || (gramsMatch && gramsMatch(q, c))) credit = RELATED_MATCH;
      else if (before?.terms.has(q)) credit = INHERITED_MATCH;
      covered += credit * w * idf(q);
      gateCovered += credit * gateWeights.get(q)! * idf(q);
    }
    // A sentence made of little more than the question's words (a title, a heading) does not answer it.
    let novel = 0;
    for (const t of c.terms) if (!weights.has(t)) novel++;
    let phrases = 0;
    if (questionPairs.size) for (const p of pairs(c.sequence)) if (questionPairs.has(p)) phrases++;
    const typed = holdsAnswerType(type, c.tokens, questionWords);
    const score =
      (covered / total) * (novel >= 2 ? 1 : 0.5) +
      PROXIMITY_WEIGHT * proximity(c.sequence, exact) +
      (questionPairs.size ? PHRASE_WEIGHT * (phrases / questionPairs.size) : 0) +
      (typed ? ANSWER_TYPE_WEIGHT : 0) +
      POSITION_WEIGHT / (1 + c.position) +
      RETRIEVAL_WEIGHT * strength[c.chunk];
    return { chunk: c.chunk, position: c.position, text: c.text, coverage: gateCovered / gateTotal, score };
  });
}

/** 1 when the matched terms sit next to each other (stopwords aside), falling towards 0 as they spread out; 0 with fewer than two. */
function proximity(sequence: string[], matched: Set<string>): number {
  if (matched.size < 2) return 0;
  const last = new Map<string, number>();
  let best = Infinity;
  sequence.forEach((t, i) => {
    if (!matched.has(t)) return;
    last.set(t, i);
    if (last.size === matched.size) best = Math.min(best, i - Math.min(...last.values()) + 1);
  });
  return best === Infinity ? 0 : matched.size / best;
}

/** Share of character runs two words must have in common (Dice) to be taken for forms of one word. */
const GRAM_OVERLAP = 0.4;

/**
 * Outside English: whether a sentence holds a word that shares most of its runs of characters with the question's
 * word of a term ("لشاكيرا" and "شاكيرا"), as the index's character runs (`gramsOf`) let it be found.
 */
function gramMatcher(questionTokens: Token[]): (term: string, c: Candidate) => boolean {
  const gramsOfTerm = new Map<string, Array<Set<string>>>();
  for (const t of questionTokens) {
    const grams = t.term ? gramsOf(t.word) : [];
    if (grams.length) gramsOfTerm.set(t.term!, [...(gramsOfTerm.get(t.term!) ?? []), new Set(grams)]);
  }
  const shares = (a: Set<string>, b: readonly string[]) => {
    let shared = 0;
    for (const g of b) if (a.has(g)) shared++;
    return b.length > 0 && (2 * shared) / (a.size + b.length) >= GRAM_OVERLAP;
  };
  return (term, c) => {
    const sets = gramsOfTerm.get(term);
    return !!sets && sets.some((a) => c.tokens.some((t) => t.term !== null && shares(a, gramsOf(t.word))));
  };
}
