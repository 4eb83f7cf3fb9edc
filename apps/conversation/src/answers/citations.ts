import { RetrievedChunk, SourceView, wholeGraphemes } from '@askdata/contracts';
import { GeneratedAnswer } from './answer-generator';

/**
 * A piece of answer text and the chunks (0-based indexes) that support it, optionally with the passage cited
 * (several passages of one chunk are joined for its snippet).
 */
export interface AnswerSegment {
  text: string;
  citations: Array<{ chunk: number; quote?: string }>;
}

/** The answer as the API shows it: Markdown with `[n]` markers, every n (1..sources.length) in `sources`. */
export interface CitedAnswer {
  text: string;
  sources: SourceView[];
}

/** Longest snippet taken from a quote; longer quotes are cut at a word boundary. */
const SNIPPET_CHARS = 300;

/** A citation marker: a bracketed number not preceded by a backslash. */
const MARKER = /(?<!\\)\[(\d{1,6})\]/g;

/** Escapes bracketed numbers in text that are not citations ("see note [3]"), so they stay text. */
export function escapeCitationMarkers(text: string): string {
  return text.replace(MARKER, '\\[$1\\]');
}

/**
 * Joins segments (as they are: a generator puts the spaces it wants between them) into a GeneratedAnswer:
 * bracketed numbers in the segments' text are escaped, and each cited segment is followed by its markers,
 * numbered from 1 in order of first appearance.
 */
export function composeAnswer(segments: AnswerSegment[]): GeneratedAnswer {
  const numbers = new Map<number, number>();
  const citations: number[] = [];
  const quotes: Record<number, string> = {};
  let text = '';
  for (const segment of segments) {
    // An opening bracket and digits at the end could meet a "]" in the next segment and read as a marker.
    const body = escapeCitationMarkers(segment.text).replace(/(?<!\\)\[(\d*)$/, '\\[$1');
    const marks: number[] = [];
    for (const { chunk, quote } of segment.citations) {
      if (!Number.isInteger(chunk) || chunk < 0) continue;
      let k = numbers.get(chunk);
      if (k === undefined) {
        k = citations.length + 1;
        numbers.set(chunk, k);
        citations.push(chunk);
      }
      if (!marks.includes(k)) marks.push(k);
      if (quote && !quotes[chunk]?.includes(quote)) quotes[chunk] = quotes[chunk] ? `${quotes[chunk]} ${quote}` : quote;
    }
    if (marks.length === 0) {
      text += body;
      continue;
    }
    const trailing = /\s*$/.exec(body)?.[0] ?? '';
    text += body.slice(0, body.length - trailing.length);
    text += `${text && !/\s$/.test(text) ? ' ' : ''}${marks.map((k) => `[${k}]`).join('')}${trailing}`;
  }
  return { text: text.trim(), citations, quotes };
}

/**
 * A GeneratedAnswer from text whose markers `[n]` point at `chunks[n - 1]` (as a model writes them): markers are
 * renumbered 1..k in order of first appearance, and markers that point at no chunk are dropped.
 */
export function fromChunkMarkers(text: string, chunkCount: number): GeneratedAnswer {
  const numbers = new Map<number, number>();
  const citations: number[] = [];
  const renumbered = text.replace(MARKER, (_marker, raw: string) => {
    const chunk = Number(raw) - 1;
    if (chunk < 0 || chunk >= chunkCount) return '';
    let k = numbers.get(chunk);
    if (k === undefined) {
      k = citations.length + 1;
      numbers.set(chunk, k);
      citations.push(chunk);
    }
    return `[${k}]`;
  });
  return { text: renumbered.replace(/ {2,}/g, ' ').trim(), citations };
}

/**
 * The public form of a generated answer: markers that point at no chunk are removed, the chunks cited are listed
 * as sources (one per item, with the quoted passage as snippet when known, else the search snippet), and markers
 * are renumbered 1..n in order of first appearance so that every one of them exists in `sources`.
 */
export function toSources(answer: GeneratedAnswer, chunks: RetrievedChunk[]): CitedAnswer {
  const byItem = new Map<string, number>();
  const sources: SourceView[] = [];
  const DROP = '\u0000';
  const renumbered = answer.text.replace(MARKER, (_marker, raw: string) => {
    const chunkIndex = answer.citations[Number(raw) - 1];
    const chunk = chunkIndex === undefined ? undefined : chunks[chunkIndex];
    if (!chunk) return DROP;
    const item = JSON.stringify([chunk.collection, chunk.item_id]);
    let index = byItem.get(item);
    if (index === undefined) {
      index = sources.length + 1;
      byItem.set(item, index);
      const quote = answer.quotes?.[chunkIndex];
      sources.push({
        index,
        item_id: chunk.item_id,
        id: chunk.id,
        collection: chunk.collection,
        url: chunk.url,
        snippet: quote ? shorten(quote, SNIPPET_CHARS) : chunk.snippet,
      });
    }
    return `[${index}]`;
  });
  const text = renumbered
    // eslint-disable-next-line no-control-regex -- NUL is the marker written above, removed here.
    .replace(/(?<!\\)[ \t]*\u0000/g, '')
    // A marker repeated at once is one; an escaped "\[n]" before it is text, not a marker.
    .replace(/(?<!\\)\[(\d+)\](?:\[\1\])+/g, '[$1]')
    .trim();
  return { text, sources };
}

function shorten(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  // Never half an emoji: a lone surrogate is not valid JSON text for the sources' jsonb column.
  const cut = wholeGraphemes(clean, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
}
