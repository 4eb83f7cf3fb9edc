/** Words after which a full stop does not end a sentence. */
const ABBREVIATIONS = new Set(
  'mr mrs ms dr prof sr jr st mt ft vs etc inc ltd co corp dept est fig figs no nos vol approx e.g i.e cf al gen gov sen rep jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k u.n a.m p.m'.split(
    ' ',
  ),
);

const segmenters = new Map<string, Intl.Segmenter>();

/**
 * Splits English text into sentences: at line breaks, and at `.`, `!` or `?` followed by space and a capital,
 * digit or quote, except after abbreviations ("Dr.", "U.S.", "e.g."), initials ("J. Smith") and inside numbers
 * ("3.5").
 */
export function splitSentences(text: string): string[] {
  // A line break always ends a sentence (titles, list items, labelled fields).
  return text.split(/\n+/).flatMap(splitLine);
}

/**
 * Splits text into sentences by its language's rules: English as `splitSentences`; other languages at line breaks
 * and at ICU's sentence breaks for the locale (`Intl.Segmenter`), which know the full stops of other scripts
 * (。！？ ؟ । ။ ።).
 */
export function sentencesIn(text: string, language: string): string[] {
  if (language === 'en') return splitSentences(text);
  const lines = text.split(/\n+/);
  let segmenter = segmenters.get(language);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(language, { granularity: 'sentence' });
    segmenters.set(language, segmenter);
  }
  const out: string[] = [];
  for (const line of lines) {
    for (const { segment } of segmenter.segment(line.replace(/\s+/g, ' ').trim())) {
      const sentence = segment.trim();
      if (sentence) out.push(sentence);
    }
  }
  return out;
}

function splitLine(line: string): string[] {
  const out: string[] = [];
  const clean = line.replace(/\s+/g, ' ').trim();
  let start = 0;
  const re = /[.!?]["')\]]?\s+(?=["'([]?[\p{Lu}\p{N}])/gu;
  for (let m = re.exec(clean); m; m = re.exec(clean)) {
    const end = m.index + 1;
    const before = clean.slice(start, end);
    const lastWord =
      /(\S+)\.$/
        .exec(before)?.[1]
        ?.toLowerCase()
        .replace(/^["'([]/, '') ?? '';
    if (clean[m.index] === '.' && (ABBREVIATIONS.has(lastWord) || /^\p{L}$/u.test(lastWord) || /^(\p{L}\.)+\p{L}$/u.test(lastWord))) continue;
    const sentence = clean.slice(start, m.index + m[0].trimEnd().length).trim();
    if (sentence) out.push(sentence);
    start = m.index + m[0].length;
  }
  const rest = clean.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}
