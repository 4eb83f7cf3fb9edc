import { analyze } from '@askdata/common';

/**
 * The passage of `text` (about `size` characters, cut at word boundaries) with the most distinct query terms,
 * earlier passages winning ties.
 */
export function snippet(text: string, terms: string[], size = 240): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= size) return clean;
  const wanted = new Set(terms);
  const words = [...clean.matchAll(/\S+/g)].map((m) => ({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, hit: analyze(m[0])[0] }));
  let best = { from: 0, score: -1 };
  for (let i = 0; i < words.length; i++) {
    const seen = new Set<string>();
    for (let j = i; j < words.length && words[j].end - words[i].start <= size; j++) {
      const h = words[j].hit;
      if (h && wanted.has(h)) seen.add(h);
    }
    if (seen.size > best.score) best = { from: i, score: seen.size };
  }
  const startWord = words[best.from];
  let end = startWord.start;
  for (let j = best.from; j < words.length && words[j].end - startWord.start <= size; j++) end = words[j].end;
  const body = clean.slice(startWord.start, end);
  return `${startWord.start > 0 ? '…' : ''}${body}${end < clean.length ? '…' : ''}`;
}
