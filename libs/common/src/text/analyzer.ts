import { languageRules, LanguageRules } from './languages';
import { foldText } from './normalize';

/** A word: letters, marks and digits, with one inner apostrophe ("don't", "l'homme", "İstanbul'da"). */
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}]+)?/gu;
/**
 * Scripts written without spaces between words, whose words are found by ICU's dictionaries (`Intl.Segmenter`):
 * Chinese, Japanese, Thai, Lao, Khmer, Burmese. On CMRC 2018 (Chinese) the first source is the answering paragraph
 * for 0.955 of the questions with ICU's words against 0.761 with overlapping character pairs (docs/benchmarks.md).
 */
const DICTIONARY = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u30FC\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}';
/** Hangul: Korean puts spaces between words but attaches particles to them, so its words are indexed as overlapping pairs. */
const HANGUL = '\\p{Script=Hangul}';
const SPACELESS = new RegExp(`[${DICTIONARY}${HANGUL}]`, 'u');
const RUNS = new RegExp(`([${HANGUL}]+)|([${DICTIONARY}]+)|([^${DICTIONARY}${HANGUL}]+)`, 'gu');
const SEGMENTER_LOCALE: Array<[RegExp, string]> = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Lao}/u, 'lo'],
  [/\p{Script=Khmer}/u, 'km'],
  [/\p{Script=Myanmar}/u, 'my'],
];
const segmenters = new Map<string, Intl.Segmenter>();
/** Languages whose articles and prepositions elide onto the next word ("l'homme", "dell'arte"). */
const ELIDING = new Set(['fr', 'it', 'ca', 'ga']);
const MAX_TERM = 64;

/**
 * The version of the analysis that turns a text into index terms. An index records the version that wrote it; when
 * this changes, every project's index is rebuilt in the background from the chunks it stores (unless its terms
 * would not change: see `ENGLISH_TERMS_SINCE`). 1: English only;
 * 2: per language; 3: a text of mixed languages takes its upsert's, the Arabic conjunction off a word with the
 * article; 4: words' runs of characters outside English.
 */
export const ANALYZER_VERSION = 4;
/**
 * The oldest analyzer version that gives English texts the terms this one gives: an index of English chunks only
 * that it (or a later one) wrote is this version's as it stands, and is not rebuilt.
 */
export const ENGLISH_TERMS_SINCE = 3;

/**
 * Outside English, the index also holds the overlapping runs of four characters of each word of a script written
 * with spaces (the word framed by `_`, so that its start and end count): a word of the question then meets the
 * same word with another prefix, suffix or spelling in a chunk ("لشاكيرا" and "شاكيرا", "الثوره" and "الثورة")
 * where the stemmer gives them different stems. These terms start with `#` (no word does), count for
 * `GRAM_WEIGHT` of a word in a score, and not in a chunk's length. On ARCD (Arabic) the first search hit is the
 * answering paragraph for 0.765 of the questions with them against 0.731 without (docs/benchmarks.md).
 */
export const GRAM_PREFIX = '#';
const GRAM_CODE = GRAM_PREFIX.charCodeAt(0);
const GRAM = 4;
/** The weight of a character-run term next to a word's. */
export const GRAM_WEIGHT = 0.35;
/** Whether an index term is a run of characters of a word rather than a word. */
export const isGram = (term: string): boolean => term.charCodeAt(0) === GRAM_CODE;

const straightApostrophes = (word: string): string => (word.includes('’') ? word.replace(/’/g, "'") : word);

/** A word of a text and its term: null for a stopword. A pair of Hangul characters is a word of its own. */
export interface AnalyzedToken {
  word: string;
  term: string | null;
}

/** Token -> term per language: the vocabulary is small next to the number of tokens. */
const tokenTerms = new Map<string, Map<string, string>>();

function memoOf(language: string): Map<string, string> {
  let memo = tokenTerms.get(language);
  if (!memo) tokenTerms.set(language, (memo = new Map<string, string>()));
  return memo;
}

const folds = new Map<string, (text: string) => string>();
function rulesOf(language: string): LanguageRules {
  let fold = folds.get(language);
  if (!fold) folds.set(language, (fold = (text: string) => foldText(text, language)));
  return languageRules(language, fold);
}

/**
 * The index term of a folded word of a script written with spaces, '' for none (a stopword, a word too long):
 * apostrophes made straight and handled as the language does (English possessive 's dropped, Turkish suffix after
 * the apostrophe dropped, French and Italian elided article dropped), then the language's Snowball stemmer;
 * memoized.
 */
function termOfWord(token: string, language: string, rules: LanguageRules, memo: Map<string, string>): string {
  let term = memo.get(token);
  if (term === undefined) {
    const word = straightApostrophes(token);
    if (word.length > MAX_TERM || rules.stopwords.has(word)) term = '';
    else {
      let base = word;
      const apostrophe = word.indexOf("'");
      if (apostrophe >= 0) {
        if (language === 'en') base = word.endsWith("'s") ? word.slice(0, -2) : word;
        else if (language === 'tr' || language === 'az') base = word.slice(0, apostrophe);
        else if (ELIDING.has(language) && apostrophe <= 6) base = word.slice(apostrophe + 1);
      }
      term = base && (language === 'en' || !rules.stopwords.has(base)) ? rules.stem(base).slice(0, MAX_TERM) : '';
    }
    if (memo.size > 200000) memo.clear();
    memo.set(token, term);
  }
  return term;
}

function segmenterFor(run: string): Intl.Segmenter {
  const locale = SEGMENTER_LOCALE.find(([re]) => re.test(run))?.[1] ?? 'zh';
  let s = segmenters.get(locale);
  if (!s) segmenters.set(locale, (s = new Intl.Segmenter(locale, { granularity: 'word' })));
  return s;
}

/**
 * Calls `emit` with every word of a folded text and its term, in order. Words of scripts written with spaces are
 * stemmed by the language; a word with an apostrophe the language does not fold is two words. Outside English, runs
 * of Han, kana, Thai, Lao, Khmer and Burmese are split into words by ICU's dictionaries, and runs of Hangul become
 * overlapping pairs of characters (a lone character stands for itself).
 */
function eachToken(folded: string, language: string, emit: (word: string, term: string) => void): void {
  const rules = rulesOf(language);
  const memo = memoOf(language);
  const splitsApostrophes = language !== 'en' && !(language === 'tr' || language === 'az' || ELIDING.has(language));
  const word = (w: string) => {
    if (splitsApostrophes && (w.includes("'") || w.includes('’'))) {
      for (const part of w.split(/['’]/)) if (part) emit(part, termOfWord(part, language, rules, memo));
    } else emit(w, termOfWord(w, language, rules, memo));
  };
  // Most texts hold no script written without spaces: then no word needs looking at twice. English keeps the
  // analysis it always had: a run of such a script inside English text (a Chinese name) is one word.
  const spaceless = language !== 'en' && SPACELESS.test(folded);
  for (const token of folded.match(WORD) ?? []) {
    if (!spaceless || !SPACELESS.test(token)) {
      word(token);
      continue;
    }
    for (const run of token.matchAll(RUNS)) {
      if (run[1] !== undefined) {
        const chars = [...run[1]];
        if (chars.length === 1) emit(chars[0], chars[0]);
        for (let i = 1; i < chars.length; i++) emit(chars[i - 1] + chars[i], chars[i - 1] + chars[i]);
      } else if (run[2] !== undefined) {
        for (const s of segmenterFor(run[2]).segment(run[2])) {
          if (s.isWordLike) emit(s.segment, rules.stopwords.has(s.segment) ? '' : s.segment.slice(0, MAX_TERM));
        }
      } else {
        for (const w of run[3].match(WORD) ?? []) word(w);
      }
    }
  }
}

/** The words of a text with their terms, in order (stopwords kept with a null term), analyzed in `language`. */
export function analyzeTokens(text: string, language = 'en'): AnalyzedToken[] {
  const out: AnalyzedToken[] = [];
  eachToken(foldText(text, language), language, (word, term) => out.push({ word, term: term || null }));
  return out;
}

/** The index term of a single word in `language`, or null for a stopword or a non-word. */
export function termOf(word: string, language = 'en'): string | null {
  const w = foldText(word, language).replace(/^[^\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}]+$/gu, '');
  if (!w) return null;
  let first: string | null = null;
  eachToken(w, language, (_word, term) => {
    if (first === null && term) first = term;
  });
  return first;
}

/**
 * The one analyzer of the index, used at index and at query time: folded text (`foldText`), words found by
 * script, the language's stopwords removed and its Snowball stemmer applied (English: Porter2, as before).
 */
export function analyze(text: string, language = 'en'): string[] {
  const out: string[] = [];
  eachToken(foldText(text, language), language, (_word, term) => term && out.push(term));
  return out;
}

/** word -> its character-run terms, and how many runs they hold in all (the memo is emptied past a million). */
const wordGrams = new Map<string, readonly string[]>();
let memoRuns = 0;
const NO_RUNS: readonly string[] = [];

/**
 * The character-run terms of a folded word of a script written with spaces, each once; none for a word of a script
 * written without spaces, a word with a digit (1910 and 1914 are not forms of one word) or a word of two characters.
 */
export function gramsOf(word: string): readonly string[] {
  const key = straightApostrophes(word);
  let grams = wordGrams.get(key);
  if (grams === undefined) {
    if (SPACELESS.test(key) || /\p{N}/u.test(key)) grams = NO_RUNS;
    else {
      const chars = [...`_${key}_`];
      const out = new Set<string>();
      if (chars.length > GRAM) for (let i = 0; i + GRAM <= chars.length; i++) out.add(GRAM_PREFIX + chars.slice(i, i + GRAM).join(''));
      grams = [...out];
    }
    if (memoRuns > 1_000_000) {
      wordGrams.clear();
      memoRuns = 0;
    }
    memoRuns += grams.length + 1;
    wordGrams.set(key, grams);
  }
  return grams;
}

/**
 * Calls `emit` with every index term of a folded text: its words' terms and, when `runs`, the character runs of the
 * words that have a term (stopwords have none).
 */
function eachIndexTerm(folded: string, language: string, runs: boolean, emit: (term: string) => void): void {
  eachToken(folded, language, (word, term) => {
    if (!term) return;
    emit(term);
    if (runs) for (const g of gramsOf(word)) emit(g);
  });
}

/** Index-term frequencies of a text in `language` (outside English, character runs included; see `GRAM_PREFIX`). */
export function termFrequencies(text: string, language = 'en'): Map<string, number> {
  const tf = new Map<string, number>();
  eachIndexTerm(foldText(text, language), language, language !== 'en', (term) => tf.set(term, (tf.get(term) ?? 0) + 1));
  return tf;
}

/**
 * The distinct index terms of a query, analyzed in each of `languages` (those of the chunks it should meet, the
 * question's own first): each counts once, however often it is repeated or however many languages give it. The
 * character runs of its words come from the first language alone, when that is not English: read in a language the
 * question is not in, they would favour that language's chunks (which hold runs) over English ones (which hold none).
 */
export function queryTerms(text: string, languages: string | readonly string[] = 'en'): string[] {
  const out = new Set<string>();
  const all = typeof languages === 'string' ? [languages] : languages;
  all.forEach((language, i) => eachIndexTerm(foldText(text, language), language, i === 0 && language !== 'en', (term) => out.add(term)));
  return [...out];
}
