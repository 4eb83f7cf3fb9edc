import { matchTerm } from './terms';
import { joinCompounds, ValueKind } from './record-lines';

/** What a question asks for, read from its words and its form ("how much", "who makes", "when"). */

/**
 * Words of labels that mean the same field, and the question words that ask for them. Matched as terms (stems), so
 * "costs", "costing" and "cost" are one.
 */
export const RELATED_LABEL_WORDS = [
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

export const GROUPS_OF = new Map<string, number[]>();
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
export interface QuestionForm {
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

export function questionForm(question: string): QuestionForm {
  const q = question.toLowerCase();
  const form = FORMS.find((f) => f.re.test(q));
  const groups = form ? form.groups.map(group) : [];
  const kinds = form ? form.kinds : [];
  const formTerms = new Set<string>();
  for (const m of q.matchAll(/\bhow (\w+)/g)) if (FORM_WORDS.test(m[1])) formTerms.add(matchTerm(m[1])!);
  return { groups, kinds, formTerms, words: new Set(joinCompounds(q).split(/[^\p{L}\p{N}]+/u)) };
}

/** A word of the question, as matched against records. */
export interface QuestionTerm {
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
