import { isLanguageCode, WITHDRAWN_LANGUAGE_CODES } from '@askdata/contracts';
import { loadModule } from 'cld3-asm';

/**
 * How much of a text language detection reads: enough to tell, and a bounded cost per item. CLD3 is sure of 99.6% of
 * SciFact's abstracts from 400 characters (97% from 200, at half the cost, where the few it then reads wrong cost
 * SciFact's nDCG@10 0.0007); the rest take their upsert's language.
 */
const SAMPLE_CHARS = 400;
/**
 * Fewer letters than this in a record, and CLD3's guess is not taken even when it says it is sure ("Apple apple
 * apple orchard number 3." is Estonian to it). A question is a sentence: it is read from `QUESTION_LETTERS` on.
 */
const MIN_LETTERS = 40;
export const QUESTION_LETTERS = 12;
/**
 * The share of a text its language must be written in. Below it the text mixes languages, or names from several:
 * a paragraph on how Genghis Khan is spelled in Mongolian, Chinese, Turkic and Russian is Vietnamese to CLD3 as a
 * whole, and less than half of any one language by its parts. Such a text takes its upsert's language, as one too
 * short to tell does.
 */
const MIN_SHARE = 0.7;

/**
 * Scripts that only one language (of those told apart here) is written in, with that language: a text written
 * mostly in one of them is in that language, whatever the detector says. Japanese is told from Chinese by its kana.
 */
const SCRIPTS: Array<[RegExp, string, number]> = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/gu, 'ja', 0.1],
  [/\p{Script=Hangul}/gu, 'ko', 0.5],
  [/\p{Script=Han}/gu, 'zh', 0.5],
  [/\p{Script=Thai}/gu, 'th', 0.5],
  [/\p{Script=Lao}/gu, 'lo', 0.5],
  [/\p{Script=Khmer}/gu, 'km', 0.5],
  [/\p{Script=Myanmar}/gu, 'my', 0.5],
  [/\p{Script=Greek}/gu, 'el', 0.5],
  [/\p{Script=Armenian}/gu, 'hy', 0.5],
  [/\p{Script=Georgian}/gu, 'ka', 0.5],
];
const SCRIPT_LANGUAGES = new Set(SCRIPTS.map(([, code]) => code));

/**
 * English's commonest words that no other language written in Latin letters uses as a word, with or without its
 * accents ("was", "also", "for", "in", "is", "of", "on" and "are" are words of German, Danish, Dutch, French or
 * Romanian too). Nine in ten of SciFact's abstracts and SQuAD's paragraphs pass `plainlyEnglish` (three in ten of
 * SQuAD's questions, most too short to hold three of these words); no paragraph in fourteen other languages does,
 * accents stripped or not.
 */
const ENGLISH_WORDS = new Set(
  'the and that with which this from were have been their these there would what when they than such about other only between after during through both each those however not but its has had into'.split(
    ' ',
  ),
);
const ENGLISH_SHARE = 0.06;
const ENGLISH_MIN_WORDS = 3;

/**
 * At most one letter in this many beyond ASCII's: a name (Müller, José) or a symbol (α, β) in English prose, where a
 * language written with accents has several in every sentence.
 */
const ASCII_LETTERS_PER_OTHER = 50;

/**
 * Whether a text is plainly English: its letters ASCII's but for a few (`ASCII_LETTERS_PER_OTHER`), and
 * `ENGLISH_SHARE` of its words or more (at least `ENGLISH_MIN_WORDS`) among `ENGLISH_WORDS`. Most texts in English
 * are, and taking them so spares CLD3's reading (about 0.8 µs a character, most of an English item's analysis);
 * others are left to CLD3.
 */
export function plainlyEnglish(sample: string): boolean {
  const words = sample.toLowerCase().match(/[a-z]+/g);
  if (!words) return false;
  let english = 0;
  let letters = 0;
  for (const word of words) {
    letters += word.length;
    if (ENGLISH_WORDS.has(word)) english++;
  }
  if (english < ENGLISH_MIN_WORDS || english < words.length * ENGLISH_SHARE) return false;
  const others = /[^\0-\x7f]/.test(sample) ? (sample.match(/(?!\p{ASCII})\p{L}/gu)?.length ?? 0) : 0;
  return others * ASCII_LETTERS_PER_OTHER <= letters;
}

type Guess = { language: string; is_reliable: boolean; proportion: number };
type Identifier = { findMostFrequentLanguages(text: string, count: number): Guess[] };
let identifier: Promise<Identifier> | null = null;

/** Google's Compact Language Detector 3 (WebAssembly), loaded once. */
function cld3(): Promise<Identifier> {
  identifier ??= loadModule().then((factory) => factory.create(0, SAMPLE_CHARS * 4));
  return identifier;
}

/** The language of a script that the text's letters are mostly in, when only one language is written in it. */
function scriptLanguage(sample: string, letters: number): string | null {
  for (const [re, code, share] of SCRIPTS) {
    if ((sample.match(re)?.length ?? 0) >= letters * share) return code;
  }
  return null;
}

/** The letters of a text: counted over its character codes while they are ASCII, else by Unicode's letter class. */
function letterCount(text: string): number {
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return text.match(/\p{L}/gu)?.length ?? 0;
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) letters++;
  }
  return letters;
}

/**
 * The language of a text (ISO 639-1), from its first characters: the script when only one language is written in
 * it (Chinese, Japanese, Korean, Thai, Greek, ...), English when it is plainly so (`plainlyEnglish`), else the
 * language CLD3 is sure most of the text is in (`MIN_SHARE`), when the text has `minLetters` letters or more. Null
 * when none can tell (too little text, mixed languages, a language without a two-letter code).
 */
export async function detectLanguage(text: string, minLetters = MIN_LETTERS): Promise<string | null> {
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const letters = letterCount(sample);
  if (letters === 0) return null;
  // Only letters beyond Latin can be in a script of one language.
  const byScript = /[\u0370-\uFFFF]/.test(sample) ? scriptLanguage(sample, letters) : null;
  if (byScript || letters < minLetters) return byScript;
  return plainlyEnglish(sample) ? 'en' : cld3Language(sample);
}

/**
 * The language CLD3 is sure most of a sample is in (`MIN_SHARE`), as an ISO 639-1 code; null when it is not sure, or
 * names a language without a code or one of its own script (a text not mostly in that script: a wrong guess).
 */
export async function cld3Language(sample: string): Promise<string | null> {
  const guesses = (await cld3()).findMostFrequentLanguages(sample, 3);
  const main = guesses.reduce<Guess | null>((best, g) => (best && best.proportion >= g.proportion ? best : g), null);
  if (!main?.is_reliable || main.proportion < MIN_SHARE) return null;
  // The detector still writes some codes withdrawn from ISO 639-1 (`iw` for Hebrew).
  const code = WITHDRAWN_LANGUAGE_CODES[main.language] ?? main.language;
  return isLanguageCode(code) && !SCRIPT_LANGUAGES.has(code) ? code : null;
}

/** The language most of `languages` are (the first of them on a tie), or null when none is known. */
export function usualLanguage(languages: ReadonlyArray<string | null | undefined>): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  for (const language of languages) {
    if (!language) continue;
    const c = (counts.get(language) ?? 0) + 1;
    counts.set(language, c);
    if (best === null || c > counts.get(best)!) best = language;
  }
  return best;
}
