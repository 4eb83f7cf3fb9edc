const displayNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/**
 * Two-letter codes withdrawn from ISO 639-1, with the codes that replaced them. Intl still names their languages, and
 * older software still writes some of them (Java's `Locale` wrote `iw`, `in` and `ji` until Java 17), but an item or a
 * question given one would be analyzed without its language's stemmer and stopwords, which are the current code's.
 */
export const WITHDRAWN_LANGUAGE_CODES: Readonly<Record<string, string>> = { iw: 'he', in: 'id', ji: 'yi', jw: 'jv', mo: 'ro', sh: 'sr' };

/** Whether `code` is an ISO 639-1 language code: two lowercase letters that name a language, and not a withdrawn code. */
export function isLanguageCode(code: unknown): code is string {
  return typeof code === 'string' && /^[a-z]{2}$/.test(code) && !Object.hasOwn(WITHDRAWN_LANGUAGE_CODES, code) && displayNames.of(code) !== code;
}

export const LANGUAGE_DESCRIPTION = 'Extension. ISO 639-1 code (two lowercase letters, e.g. "en", "zh", "ar").';
