import { isLanguageCode } from '@askdata/contracts';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tinyld = require('tinyld') as { detect(text: string): string };

/** How much of a text language detection reads: enough to tell, and a bounded cost per item. */
const SAMPLE_CHARS = 300;

/**
 * The language of a text (ISO 639-1) as `tinyld` tells it from the text's first characters, or null when it
 * cannot tell (no letters, too short, a language without a two-letter code).
 */
export function detectLanguage(text: string): string | null {
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  if (!/\p{L}/u.test(sample)) return null;
  const code = tinyld.detect(sample);
  return isLanguageCode(code) ? code : null;
}
