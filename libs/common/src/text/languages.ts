/* eslint-disable @typescript-eslint/no-require-imports */
import { ENGLISH_STOPWORDS } from './stopwords';

/** A Snowball stemmer as @nlpjs generates it from the Snowball sources. */
interface SnowballStemmer {
  setCurrent(word: string): void;
  innerStem(): void;
  getCurrent(): string;
}

/**
 * Every language the Snowball project has a stemmer for, by ISO 639-1 code, with the @nlpjs package that carries
 * the generated stemmer and the `stopword` package's list, where it has one. English keeps its own
 * stemmer (Porter2, `wink-porter2-stemmer`) and the Snowball English stopwords.
 */
const SNOWBALL: Record<string, { pkg: string; stopwords?: string }> = {
  ar: { pkg: 'ar', stopwords: 'ara' },
  ca: { pkg: 'ca', stopwords: 'cat' },
  da: { pkg: 'da', stopwords: 'dan' },
  de: { pkg: 'de', stopwords: 'deu' },
  el: { pkg: 'el', stopwords: 'ell' },
  es: { pkg: 'es', stopwords: 'spa' },
  eu: { pkg: 'eu', stopwords: 'eus' },
  fi: { pkg: 'fi', stopwords: 'fin' },
  fr: { pkg: 'fr', stopwords: 'fra' },
  ga: { pkg: 'ga', stopwords: 'gle' },
  hi: { pkg: 'hi', stopwords: 'hin' },
  hu: { pkg: 'hu', stopwords: 'hun' },
  hy: { pkg: 'hy', stopwords: 'hye' },
  id: { pkg: 'id', stopwords: 'ind' },
  it: { pkg: 'it', stopwords: 'ita' },
  lt: { pkg: 'lt', stopwords: 'lit' },
  ne: { pkg: 'ne' },
  nl: { pkg: 'nl', stopwords: 'nld' },
  no: { pkg: 'no', stopwords: 'nob' },
  nb: { pkg: 'no', stopwords: 'nob' },
  nn: { pkg: 'no', stopwords: 'nob' },
  pt: { pkg: 'pt', stopwords: 'por' },
  ro: { pkg: 'ro', stopwords: 'ron' },
  ru: { pkg: 'ru', stopwords: 'rus' },
  sr: { pkg: 'sr' },
  sv: { pkg: 'sv', stopwords: 'swe' },
  ta: { pkg: 'ta' },
  tr: { pkg: 'tr', stopwords: 'tur' },
};

/** Languages without a Snowball stemmer whose stopwords the `stopword` package lists (ISO 639-1 -> its key). */
const STOPWORDS_ONLY: Record<string, string> = {
  af: 'afr',
  bg: 'bul',
  bn: 'ben',
  br: 'bre',
  cs: 'ces',
  eo: 'epo',
  et: 'est',
  fa: 'fas',
  gl: 'glg',
  gu: 'guj',
  ha: 'hau',
  he: 'heb',
  hr: 'hrv',
  ja: 'jpn',
  ko: 'kor',
  ku: 'kur',
  la: 'lat',
  lv: 'lav',
  mr: 'mar',
  ms: 'msa',
  my: 'mya',
  pa: 'panGu',
  pl: 'pol',
  sk: 'slk',
  so: 'som',
  st: 'sot',
  sw: 'swa',
  th: 'tha',
  tl: 'tgl',
  uk: 'ukr',
  ur: 'urd',
  vi: 'vie',
  yo: 'yor',
  zh: 'zho',
  zu: 'zul',
};

/**
 * Clitics a language's Snowball stemmer leaves on: Arabic's removes the conjunction و or ف before a word, except
 * before an alef, so it keeps it before the article (والمدرسة stays والمدرس where المدرسة and مدرسة give مدرس).
 * The conjunction is dropped before the article and three letters or more, as light Arabic stemmers (Larkey's,
 * Lucene's) do: والد and والي keep theirs; the rare longer word that starts so (والدين) is read as one with the
 * article, as those stemmers read it too.
 */
const CLITICS: Record<string, RegExp> = { ar: /^[وف](?=ال\p{L}{3})/u };

/** The languages with a Snowball stemmer (English included). */
export const STEMMED_LANGUAGES: readonly string[] = ['en', ...Object.keys(SNOWBALL)].sort();

export interface LanguageRules {
  stopwords: ReadonlySet<string>;
  /** The stem of a folded word; the word itself for a language without a stemmer. */
  stem: (word: string) => string;
}

const rules = new Map<string, LanguageRules>();

/**
 * The stopwords and stemmer of a language, loaded on first use (none of either for a language that has none). The stopwords are folded as text is (`fold`),
 * so that they meet the words they are compared with.
 */
export function languageRules(language: string, fold: (text: string) => string): LanguageRules {
  let r = rules.get(language);
  if (!r) {
    r = loadRules(language, fold);
    rules.set(language, r);
  }
  return r;
}

function loadRules(language: string, fold: (text: string) => string): LanguageRules {
  if (language === 'en') {
    const porter2 = require('wink-porter2-stemmer') as (word: string) => string;
    return { stopwords: ENGLISH_STOPWORDS, stem: porter2 };
  }
  const entry = SNOWBALL[language];
  const lists = require('stopword') as Record<string, string[] | undefined>;
  const listKey = entry ? entry.stopwords : STOPWORDS_ONLY[language];
  const stopwords = new Set(((listKey && lists[listKey]) || []).map((w) => fold(w)));
  if (!entry) return { stopwords, stem: (w) => w };
  const Stemmer = require(`@nlpjs/lang-${entry.pkg}/src/stemmer-${entry.pkg}`) as new () => SnowballStemmer;
  const stemmer = new Stemmer();
  const clitic = CLITICS[language];
  return {
    stopwords,
    // The stemmer is driven directly: its own `stemWord` keeps every word it ever saw.
    stem: (word) => {
      stemmer.setCurrent(clitic ? word.replace(clitic, '') : word);
      stemmer.innerStem();
      return stemmer.getCurrent() || word;
    },
  };
}
