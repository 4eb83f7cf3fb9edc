import { analyzeTokens, termOf } from '@askdata/common';

/**
 * Terms for matching a question against sentences: the index's analyzer (`termOf`: stopwords, possessives,
 * Snowball English stemming), with two foldings that matter when one sentence is compared with one question and
 * not in ranking: irregular past forms the stemmer leaves apart are brought back to their verb ("began" and
 * "begin" are one term), and small numbers and ordinals, in words or with digits, become their digits ("sixth",
 * "6th", "six": "6").
 */
const IRREGULAR: Record<string, string> = Object.fromEntries(
  `began:begin begun:begin wrote:write written:write won:win built:build held:hold led:lead made:make took:take
taken:take gave:give given:give became:become bought:buy sold:sell taught:teach fought:fight ran:run saw:see seen:see
chose:choose chosen:choose grew:grow grown:grow knew:know known:know spoke:speak spoken:speak met:meet paid:pay
sent:send spent:spend stood:stand told:tell thought:think brought:bring drew:draw drawn:draw flew:fly flown:fly
fell:fall fallen:fall rose:rise risen:rise struck:strike sang:sing sung:sing kept:keep lost:lose threw:throw
thrown:throw wore:wear worn:wear broke:break broken:break drove:drive driven:drive ate:eat eaten:eat hid:hide
hidden:hide shot:shoot sought:seek caught:catch dealt:deal felt:feel meant:mean heard:hear froze:freeze frozen:freeze
stole:steal stolen:steal swam:swim swum:swim understood:understand forgot:forget forgotten:forget`
    .split(/\s+/)
    .map((pair) => pair.split(':') as [string, string]),
);

const CARDINALS = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(' ');
const ORDINALS =
  'zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth'.split(
    ' ',
  );
const NUMBERS = new Map<string, string>([...CARDINALS.map((w, i) => [w, String(i)] as const), ...ORDINALS.map((w, i) => [w, String(i)] as const)]);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** A word of a text with its term (null for a stopword), in order. */
export interface Token {
  word: string;
  term: string | null;
}

/** The term of one word: a number's digits, or the index's term of the word with irregular forms folded. */
export function matchTerm(word: string): string | null {
  const lower = word.toLowerCase().replace(/’/g, "'");
  const base = lower.endsWith("'s") ? lower.slice(0, -2) : lower;
  const number = NUMBERS.get(base) ?? /^(\d+)(?:st|nd|rd|th)$/.exec(base)?.[1];
  if (number !== undefined) return number;
  return termOf(IRREGULAR[base] ?? base);
}

/**
 * The words of a text in order, stopwords kept (term null) so that surface forms and positions stay known. English
 * words keep their surface form and get the foldings above; other languages' words are the index analyzer's
 * (folded, a CJK word being a pair of characters).
 */
export function tokenize(text: string, language = 'en'): Token[] {
  if (language !== 'en') return analyzeTokens(text, language);
  return [...text.matchAll(WORD)].map((m) => ({ word: m[0], term: matchTerm(m[0]) }));
}

/** The terms of a text in order, stopwords removed. */
export function terms(text: string, language = 'en'): string[] {
  return tokenize(text, language).flatMap((t) => (t.term ? [t.term] : []));
}

/** Whether two stems are forms of one word the stemmer kept apart ("creat" and "creator", "assign" and "assigne"). */
export function related(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 5 && long.length - short.length <= 3 && long.startsWith(short);
}
