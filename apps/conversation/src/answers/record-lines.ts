import { RetrievedChunk } from '@askdata/contracts';
import { FieldDescriptions } from './answer-generator';
import { terms } from './terms';

/**
 * Reading a retrieved chunk as a record: its `Label: value` lines (label path, value, value kinds), its title line
 * and its free text. What the question asks is in question-forms.ts; which field answers it in record-fields.ts.
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

/** Whether a line of free text holds a value of the kind asked for (a number for "how many"). */
export function proseHolds(kind: ValueKind, text: string): boolean {
  if (kind === 'number') return /\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand)\b/i.test(text);
  return VALUE_KINDS.some(([k, re]) => k === kind && re.test(text));
}

/** Words written with a hyphen or without ("e-mail", "email") as one word. */
export function joinCompounds(text: string): string {
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
