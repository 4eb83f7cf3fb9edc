/**
 * Splits text into chunks of at most `maxTokens` tokens (words and punctuation runs, a close approximation of
 * model tokens for English prose), cutting at sentence ends where it can, with `overlapTokens` of the previous
 * chunk repeated at the start of the next. Text that fits stays one chunk.
 */
export interface ChunkOptions {
  maxTokens: number;
  overlapTokens: number;
}

/** A line of the form `Label: value` (ingestion writes an item's fields so). */
const LABELLED = /^[^:\n]{1,80}:\s\S/;

const TOKEN = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]+/gu;

/** An ASCII letter or digit (`\p{L}\p{N}` within ASCII). */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** ASCII's white space (`\s` within ASCII). */
function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * The number of `TOKEN`s in a text. ASCII text (most of it) is counted in one pass over its character codes, as
 * TOKEN would match it, without the matches' strings; text with any other character is left to TOKEN.
 */
export function countTokens(text: string): number {
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c > 127) return text.match(TOKEN)?.length ?? 0;
    if (isSpaceCode(c)) {
      i++;
      continue;
    }
    count++;
    if (isWordCode(c)) {
      // Letters and digits, joined by an apostrophe, a full stop or a hyphen followed by more of them.
      for (;;) {
        while (i < n && isWordCode(text.charCodeAt(i))) i++;
        c = i < n ? text.charCodeAt(i) : 0;
        if ((c === 39 || c === 46 || c === 45) && i + 1 < n && isWordCode(text.charCodeAt(i + 1))) i++;
        else break;
      }
    } else {
      // Anything else up to the next letter, digit or space.
      while (i < n && (c = text.charCodeAt(i)) <= 127 && !isWordCode(c) && !isSpaceCode(c)) i++;
    }
  }
  return count;
}

export function chunkText(text: string, opts: ChunkOptions): string[] {
  const clean = text.replace(/[ \t]+/g, ' ').trim();
  if (!clean) return [];
  const max = Math.max(1, opts.maxTokens);
  const overlap = Math.min(Math.max(0, opts.overlapTokens), Math.floor(max / 2));
  if (countTokens(clean) <= max) return [clean];

  // Units: sentences (or lines), each split further when a single one is longer than a chunk. A `Label: value` line
  // keeps its line break in the chunk, so that a record's fields stay lines; other lines are joined with a space.
  const units: Unit[] = [];
  const sentences = clean
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u).map((text, i) => ({ text: text.trim(), opensLine: i === 0 && LABELLED.test(text) })));
  for (const { text: s, opensLine } of sentences) {
    if (!s) continue;
    const sentenceTokens = countTokens(s);
    if (sentenceTokens <= max) {
      units.push({ text: s, tokens: sentenceTokens, opensLine });
      continue;
    }
    // No token spans whitespace, so a run of words counts the sum of their tokens.
    let part: string[] = [];
    let partTokens = 0;
    let first = opensLine;
    for (const w of s.split(/\s+/)) {
      const tokens = countTokens(w);
      if (partTokens + tokens > max && part.length) {
        units.push({ text: part.join(' '), tokens: partTokens, opensLine: first });
        part = [];
        partTokens = 0;
        first = false;
      }
      part.push(w);
      partTokens += tokens;
    }
    if (part.length) units.push({ text: part.join(' '), tokens: partTokens, opensLine: first });
  }

  const chunks: string[] = [];
  let current: Unit[] = [];
  let size = 0;
  for (const unit of units) {
    if (size + unit.tokens > max && current.length) {
      chunks.push(joinUnits(current));
      // Carry whole trailing units worth at most `overlap` tokens into the next chunk.
      const carried: Unit[] = [];
      let carriedSize = 0;
      for (let i = current.length - 1; i >= 0 && carriedSize + current[i].tokens <= overlap; i--) {
        carried.unshift(current[i]);
        carriedSize += current[i].tokens;
      }
      current = carried;
      size = carriedSize;
    }
    current.push(unit);
    size += unit.tokens;
  }
  if (current.length) chunks.push(joinUnits(current));
  return chunks;
}

interface Unit {
  text: string;
  tokens: number;
  /** Whether the unit starts a `Label: value` line of the text. */
  opensLine: boolean;
}

function joinUnits(units: Unit[]): string {
  return units.map((u, i) => (i === 0 ? u.text : `${u.opensLine ? '\n' : ' '}${u.text}`)).join('');
}
