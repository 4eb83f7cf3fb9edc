import { RetrievedChunk } from '@askdata/contracts';
import { FieldDescriptions } from './answer-generator';
import { fieldEvidence } from './field-evidence';
import { QuestionTerm, questionForm, RELATED_LABEL_WORDS } from './question-forms';
import { FieldLine, joinCompounds, proseHolds, readRecord, RecordChunk, ValueKind } from './record-lines';
import { matchTerm, terms } from './terms';

/**
 * Answers from records: items whose text is `Label: value` lines (ingestion writes an item's `data` that way, nested
 * objects as paths, `Specs > Weight: 3 kg`, arrays of objects numbered, `Line items 2 > Product: ...`). A question
 * that names a record and asks for one of its fields is answered with that field's line. Which record: the one
 * whose title and values hold most of the question's naming words (weighted by how rare they are among the
 * retrieved records, so "desk" tells the Orla desk lamp from the Orla floor lamp). Which field: by the label's
 * words and stems (and the declared field's description), by related label words ("cost" and "price"), by the
 * question's form ("how much", "who makes", "when", "where", "how many", "how long") and by the kind of value the
 * question expects (a money amount, a date, a duration, an e-mail address, a phone number, ...).
 */

// Reading a chunk as a record lives in record-lines.ts.

/** What a record answer says: the lines quoted, or that the named record does not state what was asked. */
export type RecordAnswer = { kind: 'fields'; record: RecordChunk; lines: string[] } | { kind: 'missing'; record: RecordChunk; asked: string[] };

/** How much naming the record counts next to matching the field: the record named comes first. */
const NAMING_WEIGHT = 3;
/** Share of a naming word's weight a record gets for holding it in a value rather than in its title. */
const VALUE_NAMING = 0.8;
/** How much less of the naming words than the record named most a record answering may hold. */
const NAMING_SLACK = 0.1;
/** Least share of the question's naming words a record must hold to be the one asked about. */
const MIN_NAMING = 0.5;
/** Least naming share for saying that a record does not state a field. */
const MIN_NAMING_MISSING = 0.75;
/** Least field evidence for quoting a field. */
const MIN_FIELD = 0.5;
/** Field evidence that stands however many other words the question has (several related words, its form and kind). */
const STRONG_FIELD = 1.5;
/** Most lines quoted for one field (an array's elements). */
const MAX_LINES = 12;
/** Question words that ask for nothing in particular. */
const FILLER = new Set([
  'tell',
  'know',
  'give',
  'find',
  'show',
  'list',
  'pleas',
  'need',
  'want',
  'like',
  'say',
  'record',
  'detail',
  'info',
  'inform',
  'data',
  'look',
  'get',
  'can',
  'may',
  'might',
  'will',
  'must',
  'shall',
  'exact',
  'current',
  'actual',
]);

/**
 * The record answer to a question over the retrieved chunks, or null when the question is not a field question
 * about one of the records among them (free text then answers, as before).
 */
export function answerFromRecords(question: string, chunks: RetrievedChunk[], descriptions: FieldDescriptions = {}): RecordAnswer | null {
  const records = chunks.map((c, i) => readRecord(c, i, descriptions)).filter((r): r is RecordChunk => r !== null);
  if (records.length === 0) return null;
  const form = questionForm(question);
  const tokens = joinCompounds(question).match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  const questionTerms: QuestionTerm[] = [];
  tokens.forEach((word, i) => {
    const term = matchTerm(word);
    if (!term || form.formTerms.has(term) || questionTerms.some((q) => q.term === term)) return;
    const name = (i > 0 && /^\p{Lu}/u.test(word)) || /\d/.test(word);
    questionTerms.push({ term, word, name, position: i, verb: i > 0 && /^who$/i.test(tokens[i - 1]), naming: false });
  });
  // "How heavy is it?" names nothing and asks by its form alone: the record retrieval ranks first is meant.
  if (questionTerms.length === 0 && !form.groups.length) return null;

  // How rare each word is among the retrieved chunks' naming text: rare words tell records apart.
  const naming = chunks.map((c, i) => records.find((r) => r.chunk === i)?.namingTerms ?? new Set(terms(c.text)));
  const df = (t: string) => naming.reduce((n, s) => n + (s.has(t) ? 1 : 0), 0);
  const idf = (t: string) => Math.log(1 + (chunks.length + 1) / (df(t) + 0.5));
  // A word that names something: one found in some record's title or values, or a name or number as asked.
  const namingWeight = new Map(questionTerms.map((q) => [q.term, df(q.term) > 0 || q.name ? idf(q.term) : 0]));
  for (const q of questionTerms) q.naming = df(q.term) > 0;
  const top = chunks.reduce((max, c) => Math.max(max, c.score), 0);
  const strength = (r: RecordChunk) => (top > 0 ? Math.max(0, chunks[r.chunk].score) / top : 1 / (1 + r.chunk));

  /**
   * Share of the naming words (those the field does not take) the record holds: in full in its title, in part in
   * its values (an order naming a product in a line item is not that product). A question may name the record by
   * the value it asks about ("Which lamp has a 5 year warranty?").
   */
  const nameCover = (r: RecordChunk, taken: Set<string>) => {
    let total = 0;
    let held = 0;
    for (const q of questionTerms) {
      if (taken.has(q.term)) continue;
      const w = namingWeight.get(q.term)!;
      total += w;
      if (r.titleTerms.has(q.term)) held += w;
      else if (r.namingTerms.has(q.term)) held += VALUE_NAMING * w;
    }
    return total > 0 ? held / total : 1;
  };

  // Words after the last naming word of a question ("Where does Maria Lopez work?") are its verb, not a field,
  // unless that word is a possessive ("Maria Lopez's shoe size").
  const syntax = /^\s*(what|what's|which|who|whose|whom|where|when|how|is|are|was|were|does|do|did|has|have|can|could|will)\b/i.test(question);
  const trailing = (r: RecordChunk) => {
    const held = questionTerms.filter((q) => r.namingTerms.has(q.term));
    const last = held.reduce<QuestionTerm | null>((a, q) => (!a || q.position > a.position ? q : a), null);
    const verbs = syntax && last !== null && !/['’]s$/i.test(last.word);
    return (q: QuestionTerm) => q.verb || (verbs && q.position > last.position);
  };

  const candidates: Array<{ record: RecordChunk; field: FieldLine; score: number; taken: Set<string>; exact: boolean; evidence: number; cover: number }> = [];
  for (const r of records) {
    const kindCount = new Map<ValueKind, number>();
    for (const f of r.fields) for (const k of f.kinds) kindCount.set(k, (kindCount.get(k) ?? 0) + 1);
    for (const f of r.fields) {
      const { evidence, taken, exact } = fieldEvidence(f, questionTerms, form, kindCount);
      if (evidence < MIN_FIELD) continue;
      // The field that names the record ("Order number: SO-10234") is not what a question naming it by that asks for.
      const held = questionTerms.filter((q) => !taken.has(q.term) && namingWeight.get(q.term)! > 0 && r.namingTerms.has(q.term));
      if (held.length && held.every((q) => f.valueTerms.has(q.term) && !r.titleTerms.has(q.term) && !r.fields.some((o) => o !== f && o.valueTerms.has(q.term)))) continue;
      const cover = nameCover(r, taken);
      candidates.push({ record: r, field: f, score: NAMING_WEIGHT * cover + evidence + 0.2 * strength(r), taken, exact, evidence, cover });
    }
  }
  candidates.sort((a, b) => b.score - a.score);

  // The record the question names, whatever its fields: the one holding most of its naming words.
  const named = records.map((r) => ({ r, cover: nameCover(r, labelWordsOf(r, questionTerms)) })).sort((a, b) => b.cover - a.cover || strength(b.r) - strength(a.r))[0];

  for (const { record, field, taken, exact, evidence, cover } of candidates) {
    if (cover < MIN_NAMING || cover < named.cover - NAMING_SLACK) continue;
    // Words asked about that the field does not account for: unless a word of the label itself was asked for or
    // several signs point at the field, they decide ("parking fee" is not "Ticket price"). Found in the record's
    // free text, the text answers; found nowhere, the record does not state what was asked.
    const after = trailing(record);
    const identifying = identifyingWords(record, questionTerms);
    const rest = questionTerms.filter((q) => !taken.has(q.term) && !identifying.has(q.term) && !FILLER.has(q.term) && !after(q));
    if (exact || evidence >= STRONG_FIELD || rest.length === 0) {
      const lines = record.fields
        .filter((f) => f.shape === field.shape)
        .map((f) => f.line)
        .slice(0, MAX_LINES);
      return { kind: 'fields', record, lines };
    }
    if (rest.some((q) => record.prose.some((p) => terms(p).includes(q.term) && (!form.kinds.length || form.kinds.some((k) => proseHolds(k, p)))))) return null;
  }

  // The question names a record and asks for something it holds nowhere, not even in its free text. Named: the
  // record holds most of the question's naming words, or its title holds every name asked (capitalised words,
  // numbers), however many other words the other records hold ("shoe" of a shoe rack, for "Mateo Byrne's shoe size").
  const names = questionTerms.filter((q) => q.name);
  const namedByTitle = names.length > 0 && names.every((q) => named.r.titleTerms.has(q.term));
  if ((named.cover >= MIN_NAMING_MISSING || namedByTitle) && (form.groups.length || form.kinds.length || /\b(what|which|what's)\b/i.test(question) || !question.includes('?'))) {
    const after = trailing(named.r);
    const absent = questionTerms.filter((q) => !named.r.allTerms.has(q.term) && !FILLER.has(q.term) && !q.name);
    const asked = absent.filter((q) => !after(q)).map((q) => q.word.toLowerCase());
    // Nothing asked in words ("How tall is ...?", "Where does ... work?"): the form says what ("height").
    if (!asked.length && form.groups.length && !questionTerms.some((q) => !named.r.namingTerms.has(q.term) && named.r.allTerms.has(q.term))) {
      asked.push(RELATED_LABEL_WORDS[form.groups[0]].split(' ')[0]);
    }
    if (asked.length) return { kind: 'missing', record: named.r, asked };
  }
  return null;
}

/**
 * The words that name the record: its title and values, and the labels of the values the question names ("order"
 * of "Order number: SO-10234").
 */
function identifyingWords(r: RecordChunk, questionTerms: QuestionTerm[]): Set<string> {
  const out = new Set(r.namingTerms);
  const asked = new Set(questionTerms.map((q) => q.term));
  for (const f of r.fields) if ([...f.valueTerms].some((t) => asked.has(t))) for (const t of [...f.parentTerms, ...f.labelTerms]) out.add(t);
  return out;
}

/** Question words that match some label of the record (they ask for a field rather than name the record). */
function labelWordsOf(r: RecordChunk, questionTerms: Array<{ term: string }>): Set<string> {
  const out = new Set<string>();
  for (const f of r.fields) for (const q of questionTerms) if (f.labelTerms.includes(q.term)) out.add(q.term);
  return out;
}
