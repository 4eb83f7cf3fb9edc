const displayNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** Whether `code` is an ISO 639-1 language code: two lowercase letters that name a language. */
export function isLanguageCode(code: unknown): code is string {
  return typeof code === 'string' && /^[a-z]{2}$/.test(code) && displayNames.of(code) !== code;
}

export const LANGUAGE_DESCRIPTION = 'Extension. ISO 639-1 code (two lowercase letters, e.g. "en", "zh", "ar").';
