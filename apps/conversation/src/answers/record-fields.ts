import { RetrievedChunk } from '@askdata/contracts';
import { FieldDescriptions } from './answer-generator';
import { matchTerm, related, terms } from './terms';

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

/** One `Label: value` line of a record. */
export interface FieldLine {
  /** The line as written. */
  line: string;
  /** The label's path, array numbers dropped ("Line items 2 > Product": ["Line items", "Product"]). */
  path: string[];
  value: string;
  valueTerms: Set<string>;
  /** Terms of the label's last part, and of the parts before it. */
  labelTerms: string[];
  /** Words of the label's last part, lowercase. */
  labelWords: string[];
  parentTerms: string[];
  kinds: Set<ValueKind>;
  /** The label with array numbers replaced, so that the same field of every array element shares it. */
  shape: string;
}

/** A retrieved chunk read as a record. */
export interface RecordChunk {
  chunk: number;
  /** The record's title line, when the chunk opens the record with one. */
  title: string | null;
  fields: FieldLine[];
  /** Lines that are not fields (free text: a description, a body). */
  prose: string[];
  /** Terms of the title and of every value: what can name the record. */
  namingTerms: Set<string>;
  /** Terms of the title. */
  titleTerms: Set<string>;
  /** Terms of the whole chunk, labels included. */
  allTerms: Set<string>;
}

export type ValueKind = 'money' | 'date' | 'duration' | 'email' | 'phone' | 'weight' | 'length' | 'number' | 'url' | 'name';

const MONTH = '(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)(?![a-z])\\.?';
const VALUE_KINDS: Array<[ValueKind, RegExp]> = [
  ['email', /[^\s@]+@[^\s@]+\.[a-z]{2,}/i],
  ['url', /^(https?:\/\/|www\.)\S+$/i],
  ['money', /[$€£¥₹]\s?\d|\b\d[\d,.]*\s?(usd|eur|gbp|chf|jpy|cad|aud|dollars?|euros?|pounds sterling)\b|\b(usd|eur|gbp|chf)\s?\d/i],
  [
    'date',
    new RegExp(
      `\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}\\b|\\b${MONTH}\\s+\\d{1,2}\\b|\\b\\d{1,2}(st|nd|rd|th)?\\s+${MONTH}|\\b${MONTH}\\s+\\d{4}\\b|^\\s*(1[5-9]|20)\\d{2}\\s*$|\\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\\b`,
      'i',
    ),
  ],
  [
    'duration',
    /\b\d+(\.\d+)?\s?(-\s?)?(years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?|seconds?|secs?)\b|\b(lifetime|one|two|three|four|five|six|ten|twelve) (years?|months?|weeks?|days?|hours?)\b/i,
  ],
  ['weight', /\d\s?(kg|g|mg|lbs?|oz|t|tonnes?|tons?|grams?|kilos?|kilograms?|pounds|ounces)\b/i],
  ['length', /\d\s?(mm|cm|m|km|in|inch|inches|ft|feet|foot|metres?|meters?|miles?|")(\s|$|x|×|,)/i],
  ['phone', /^\+?[\d\s()./-]{7,}(\s?(ext|x)\.?\s?\d+)?$/i],
  ['number', /^\s*[-+]?\d[\d,]*(\.\d+)?\s*(%|units?|pcs|pieces|items|seats|people|rooms|copies)?\s*$/i],
  // What "who" asks for: a name of someone or something, words without digits.
  ['name', /^(?=.*\p{L})[^\d@/]{1,80}$/u],
];

/** The kinds of value a field's value is. */
export function valueKinds(value: string): Set<ValueKind> {
  const kinds = new Set<ValueKind>();
  for (const [kind, re] of VALUE_KINDS) if (re.test(value)) kinds.add(kind);
  // A phone number is digits and separators with at least seven digits, and not a date or an amount.
  if (kinds.has('phone') && ((value.match(/\d/g)?.length ?? 0) < 7 || kinds.has('date') || kinds.has('money'))) kinds.delete('phone');
  if (kinds.has('phone')) kinds.delete('number');
  return kinds;
}

/**
 * Words of labels that mean the same field, and the question words that ask for them. Matched as terms (stems), so
 * "costs", "costing" and "cost" are one.
 */
const RELATED_LABEL_WORDS = [
  'price cost costs amount fee fees charge total sum paid pay payment salary wage value budget spend spent revenue expensive cheap tariff msrp',
  'weight weigh weighs mass heavy heaviness light',
  'maker manufacturer manufactured manufacture brand vendor make makes made produce produces produced producer supplier supplies supplied company firm label',
  'location located locate office address city town place site country region venue room building based headquarters hq campus where lives live situated held host hosted',
  'date day year time when scheduled schedule',
  'start starts started begin begins began beginning join joined joining hire hired hiring onboard opened open opens launch launched release released since commence commenced',
  'end ends ended finish finishes finished close closes closed expire expires expiry expiration due deadline until',
  'born birth birthday dob birthdate age old',
  'quantity quantities count number qty units unit stock inventory many seats capacity headcount pieces copies amount',
  'duration length long period term warranty guarantee guaranteed lifetime last lasts runtime validity valid',
  'email mail',
  'phone telephone tel mobile cell call ring dial number',
  'size dimensions dimension big large small measurements measure',
  'height tall high',
  'width wide breadth',
  'depth deep',
  'colour color colours colors coloured colored',
  'speed fast quick',
  'owner owned owns manager managed manages lead leads led author wrote written contact assignee assigned reporter reported responsible head supervisor boss organizer organiser organised organized run runs',
  'customer client buyer purchaser',
  'carrier courier shipper ships deliver delivers delivery',
  'product products item items goods article articles purchased bought',
  'status state stage progress',
  'language languages speak speaks spoken',
  'department team division unit group',
  'title role position job',
  'url link website site web homepage',
  'rating score stars rated',
  'material materials made fabric',
  'version release',
  'capacity holds hold people attendees guests seats attend visitors',
  'model',
  'category type kind class',
  'sku code reference ref',
];

const GROUPS_OF = new Map<string, number[]>();
RELATED_LABEL_WORDS.forEach((words, group) => {
  for (const w of words.split(' ')) {
    const t = matchTerm(w);
    if (!t) continue;
    const list = GROUPS_OF.get(t) ?? [];
    if (!list.includes(group)) list.push(group);
    GROUPS_OF.set(t, list);
  }
});
const group = (word: string) => RELATED_LABEL_WORDS.findIndex((g) => g.split(' ')[0] === word);

/** What a question's form asks for: label groups it points at, value kinds it expects, and its form words. */
interface QuestionForm {
  groups: number[];
  kinds: ValueKind[];
  /** Terms of the form itself ("much", "many", "long"), which name no record. */
  formTerms: Set<string>;
  /** The question's words as written, lowercase, stopwords included. */
  words: Set<string>;
}

/** Question forms, most specific first: the first that fits decides ("how much ... weigh" is a weight, not a price). */
const FORMS: Array<{ re: RegExp; groups: string[]; kinds: ValueKind[] }> = [
  { re: /\be-?mail\b/, groups: ['email'], kinds: ['email'] },
  { re: /\b(phone|telephone|call|ring|dial|mobile)\b/, groups: ['phone'], kinds: ['phone'] },
  { re: /\b(website|web site|url|homepage|link)\b/, groups: ['url'], kinds: ['url'] },
  { re: /\bhow (much|many (kilos|kilograms|pounds|grams))\b.*\b(weigh|weighs|weight)\b|\bhow heavy\b/, groups: ['weight'], kinds: ['weight'] },
  { re: /\bhow much\b|\bwhat (does|do|did) .* (cost|charge)\b|\bwhat .*\b(price|cost)\b/, groups: ['price'], kinds: ['money'] },
  { re: /\bhow many\b|\bwhat (number|quantity|count)\b/, groups: ['quantity', 'capacity'], kinds: ['number'] },
  { re: /\bhow long\b|\bfor how long\b|\bwhat (duration|period)\b/, groups: ['duration'], kinds: ['duration', 'length'] },
  { re: /\bhow old\b/, groups: ['born'], kinds: ['number', 'date'] },
  { re: /\bhow (tall|high)\b/, groups: ['height'], kinds: ['length'] },
  { re: /\bhow (big|large|small)\b/, groups: ['size'], kinds: ['length'] },
  { re: /\bhow wide\b/, groups: ['width'], kinds: ['length'] },
  { re: /\bhow deep\b/, groups: ['depth'], kinds: ['length'] },
  { re: /\bhow fast\b/, groups: ['speed'], kinds: [] },
  { re: /\bwhen\b|\b(what|which) (date|day|year|month|time)\b|\bwhat time\b|\bby when\b/, groups: ['date', 'start', 'end', 'born'], kinds: ['date'] },
  { re: /\bwhere\b|\bwhich (city|country|office|building|room|site|town)\b|\bin what (city|country|office|building|room)\b/, groups: ['location'], kinds: [] },
  { re: /\bwhat (was|were|is|are|got) (ordered|bought|purchased|included|sold)\b/, groups: ['product'], kinds: [] },
  { re: /\bmade (of|from|out of|with)\b|\b(what|which) materials?\b/, groups: ['material'], kinds: [] },
  { re: /\bwhat (does|do|did) .+ do\b|\bwhat is .+'s? (job|position)\b/, groups: ['title'], kinds: [] },
  {
    re: /\bwho (makes|made|manufactures|manufactured|produces|produced|builds|built|sells|sold|supplies|supplied|brews|publishes|published)\b|\b(what|which) (brand|company|maker|manufacturer)\b/,
    groups: ['maker'],
    kinds: [],
  },
  { re: /\bwho\b|\bwhose\b|\bwhom\b/, groups: ['owner', 'customer', 'carrier', 'maker'], kinds: ['name'] },
];
const FORM_WORDS = /^(much|many|long|old|tall|high|big|large|small|wide|deep|fast|heavy)$/;

function questionForm(question: string): QuestionForm {
  const q = question.toLowerCase();
  const form = FORMS.find((f) => f.re.test(q));
  const groups = form ? form.groups.map(group) : [];
  const kinds = form ? form.kinds : [];
  const formTerms = new Set<string>();
  for (const m of q.matchAll(/\bhow (\w+)/g)) if (FORM_WORDS.test(m[1])) formTerms.add(matchTerm(m[1])!);
  return { groups, kinds, formTerms, words: new Set(joinCompounds(q).split(/[^\p{L}\p{N}]+/u)) };
}

/** Words written with a hyphen or without ("e-mail", "email") as one word. */
function joinCompounds(text: string): string {
  return text.replace(/\b(e)-(mail)/gi, '$1$2');
}

/** A label of a `Label: value` line: short parts without sentence punctuation, joined with " > ". */
const FIELD_LINE = /^([^:\n]{1,80}?):\s+(\S.*)$/;

function parseField(line: string, descriptions: Record<string, string>): FieldLine | null {
  const m = FIELD_LINE.exec(line);
  if (!m) return null;
  const parts = joinCompounds(m[1])
    .split(' > ')
    .map((p) => p.trim());
  if (parts.some((p) => !p || /[.!?;]/.test(p) || p.split(/\s+/).length > 6 || !/^[\p{L}\p{N}]/u.test(p))) return null;
  // Array elements are numbered by ingestion ("Line items 2"): the number is no part of the field's name.
  const path = parts.map((p) => p.replace(/\s+\d+$/, ''));
  const last = path[path.length - 1];
  const description = descriptions[key(last)] ?? descriptions[key(parts.join(' '))] ?? '';
  return {
    line,
    path,
    value: m[2].trim(),
    valueTerms: new Set(terms(m[2])),
    labelTerms: [...new Set([...terms(last), ...terms(description)])],
    labelWords: last
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
    parentTerms: path.slice(0, -1).flatMap((p) => terms(p)),
    kinds: valueKinds(m[2]),
    shape: path.join(' > '),
  };
}

/** A field name or label compared loosely: "unitPrice", "unit_price" and "Unit price" are one. */
function key(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Reads a chunk as a record: its `Label: value` lines, its title line (the first line of the item's first chunk,
 * when it is no field) and its other lines. Null when the chunk is not a record (fewer than two field lines, and
 * not a single field on its own).
 */
export function readRecord(chunk: RetrievedChunk, index: number, descriptions: FieldDescriptions = {}): RecordChunk | null {
  const lines = chunk.text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const declared = Object.fromEntries(Object.entries(descriptions[chunk.collection] ?? {}).map(([k, v]) => [key(k), v]));
  const fields: FieldLine[] = [];
  const prose: string[] = [];
  let title: string | null = null;
  lines.forEach((line, i) => {
    const field = parseField(line, declared);
    if (field) fields.push(field);
    else if (i === 0 && chunk.chunk === 0 && line.split(/\s+/).length <= 16) title = line;
    else prose.push(line);
  });
  // One field is a record only under a title and alone ("Note: ..." opening a paragraph is prose).
  const single = fields.length === 1 && title !== null && prose.length === 0 && fields[0].value.split(/\s+/).length <= 20;
  if (fields.length < 2 && !single) return null;
  const titleTerms = new Set(title ? terms(title) : []);
  const namingTerms = new Set([...titleTerms, ...fields.flatMap((f) => [...f.valueTerms])]);
  return { chunk: index, title, fields, prose, titleTerms, namingTerms, allTerms: new Set(terms(chunk.text)) };
}

interface QuestionTerm {
  term: string;
  /** The word as asked. */
  word: string;
  /** A capitalised word after the first, or one with digits: it names something. */
  name: boolean;
  /** Its place among the question's words. */
  position: number;
  /** The word after "who" ("Who placed ..."): a verb, which matches a label as itself but not through related words. */
  verb: boolean;
  /** Found in the title or values of a retrieved record: it names something, and matches a label only as itself. */
  naming: boolean;
}

/** What a record answer says: the lines quoted, or that the named record does not state what was asked. */
export type RecordAnswer = { kind: 'fields'; record: RecordChunk; lines: string[] } | { kind: 'missing'; record: RecordChunk; asked: string[] };

/** Credit for a question word found as a word of the label's last part (or the declared description). */
const LABEL_MATCH = 1;
/** Credit for a question word found in a part of the label's path before the last ("Specs" of "Specs > Weight"). */
const PARENT_MATCH = 0.4;
/** Credit for a question word related to a label word ("cost" for "Price"). */
const RELATED_MATCH = 0.7;
/** Credit when the question's form points at the label ("how much" at "Price"). */
const FORM_MATCH = 0.6;
/** Credit when the value is of a kind the question expects (a duration for "how long"). */
const KIND_MATCH = 0.5;
/** What is left of a field's evidence when its value is not of the kind the question expects. */
const KIND_MISMATCH = 0.5;
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
/** Credit for a label whose words are all in the question as written. */
const SAME_WORDS = 0.1;
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

/** Whether a line of free text holds a value of the kind asked for (a number for "how many"). */
function proseHolds(kind: ValueKind, text: string): boolean {
  if (kind === 'number') return /\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand)\b/i.test(text);
  return VALUE_KINDS.some(([k, re]) => k === kind && re.test(text));
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

/**
 * How well a field answers what the question asks for: its label's words (exact, in the path before it, or related),
 * the question's form pointing at it, and its value being of the kind expected (counted only when the label
 * matched or the record has one value of that kind). `taken`: the question words the field accounts for.
 */
function fieldEvidence(
  f: FieldLine,
  questionTerms: QuestionTerm[],
  form: QuestionForm,
  kindCount: Map<ValueKind, number>,
): { evidence: number; taken: Set<string>; exact: boolean } {
  const taken = new Set<string>();
  let exact = false;
  const labelGroups = new Set(f.labelTerms.flatMap((t) => GROUPS_OF.get(t) ?? []));
  let evidence = 0;
  const matchedLabel = new Set<string>();
  for (const q of questionTerms) {
    let credit = 0;
    const word = f.labelTerms.find((t) => t === q.term || (!q.naming && related(t, q.term)));
    if (word) {
      credit = LABEL_MATCH;
      matchedLabel.add(word);
      exact = true;
    } else if (!q.verb && !q.naming && (GROUPS_OF.get(q.term) ?? []).some((g) => labelGroups.has(g))) {
      credit = RELATED_MATCH;
      for (const t of f.labelTerms) if ((GROUPS_OF.get(t) ?? []).some((g) => (GROUPS_OF.get(q.term) ?? []).includes(g))) matchedLabel.add(t);
    } else if (f.parentTerms.includes(q.term)) credit = PARENT_MATCH;
    if (credit > 0) {
      taken.add(q.term);
      evidence += credit;
    }
  }
  let byLabel = evidence > 0;
  if (form.groups.some((g) => labelGroups.has(g))) {
    evidence += FORM_MATCH;
    byLabel = true;
    for (const t of f.labelTerms) if ((GROUPS_OF.get(t) ?? []).some((g) => form.groups.includes(g))) matchedLabel.add(t);
  }
  // A label all of whose words are asked for fits better than one that only shares a word ("Date" against "Order date"),
  // and one written as asked better still ("check-out" against "Check-in", "publisher" against "Published").
  if (f.labelTerms.length) evidence *= 0.75 + 0.25 * (matchedLabel.size / f.labelTerms.length);
  if (evidence > 0) evidence += SAME_WORDS * (f.labelWords.filter((w) => form.words.has(w)).length / f.labelWords.length);
  const kind = form.kinds.find((k) => f.kinds.has(k));
  if (kind && (byLabel || kindCount.get(kind) === 1)) evidence += KIND_MATCH;
  // A value of another kind than the one asked for ("When was ... ordered?" and a product name) is a poor answer.
  else if (form.kinds.length && !kind) evidence *= KIND_MISMATCH;
  return { evidence, taken, exact };
}
