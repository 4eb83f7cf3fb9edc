/** Characters that change nothing a reader sees: soft hyphen, zero-width space, word joiner, byte order mark. */
const INVISIBLE = /[\u00AD\u200B\u2060\uFEFF]/g;
const GREEK = /[\u0370-\u03FF\u1F00-\u1FFF]/;
const ARABIC = /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF]/;
const HEBREW = /[\u0591-\u05C7]/;

/**
 * Text folded for matching, the same at index and query time: NFKC (full-width forms, ligatures, compatibility
 * digits), case folded by the language's rules (Turkish and Azerbaijani dotted and dotless i), and the standard
 * folds of scripts whose readers ignore a difference: Greek accents and final sigma; Arabic diacritics
 * (harakat), tatweel, alef forms (أ إ آ ٱ to ا) and yeh forms (ى and Persian ی to ي, Persian ک to ك); Hebrew
 * points and cantillation. Idempotent.
 */
export function foldText(text: string, language = 'en'): string {
  // Plain ASCII (most English) needs nothing but lowercase.
  if (!/[\u0080-\uffff]/.test(text)) return text.toLowerCase();
  let s = text.normalize('NFKC').replace(INVISIBLE, '');
  s = language === 'tr' || language === 'az' ? s.toLocaleLowerCase('tr') : s.replace(/\u0130/g, 'i').toLowerCase();
  if (GREEK.test(s))
    s = s
      .normalize('NFD')
      .replace(/(\p{Script=Greek})\p{M}+/gu, '$1')
      .replace(/ς/g, 'σ');
  if (ARABIC.test(s)) {
    s = s
      .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
      .replace(/[\u0622\u0623\u0625\u0671]/g, '\u0627')
      .replace(/[\u0649\u06CC]/g, '\u064A')
      .replace(/\u06A9/g, '\u0643');
  }
  if (HEBREW.test(s)) s = s.replace(/[\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7]/g, '');
  // Lowercasing and the folds above can leave text that normalizes further.
  return s.normalize('NFKC');
}
