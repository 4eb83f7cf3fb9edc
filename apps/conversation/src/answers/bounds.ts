import { wholeGraphemes } from '@askdata/contracts';
import { ChatTurn, GeneratedAnswer } from './answer-generator';

/** Closes the text of an answer cut off at a length limit (the model's or the service's). */
export const CUT_OFF_NOTE = '*(This answer was cut off: it reached its length limit.)*';

/**
 * Tokens of a text as this service estimates them: UTF-8 bytes / 3, rounded up. That is more than Claude counts
 * for English (about 4 characters a token) and about one a character for Chinese or Japanese, so a budget
 * measured this way holds.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/**
 * The answer as stored: at most `maxChars` characters. A longer answer is cut at the last paragraph, line or
 * word break before the limit (never inside a citation marker, and closing a code block left open) and marked
 * `truncated`; an answer the model itself cut off keeps its text. Either way a truncated answer's text ends with
 * {@link CUT_OFF_NOTE}.
 */
export function boundAnswer(answer: GeneratedAnswer, maxChars: number): GeneratedAnswer {
  if (answer.text.length <= maxChars && answer.finish !== 'truncated') return answer;
  const closing = `\n\n${CUT_OFF_NOTE}`;
  // Room for the note, and for a fence closing a code block the cut left open.
  const room = maxChars - closing.length - 4;
  let text = answer.text.trimEnd();
  if (text.length > room) text = cutAt(text, room);
  if (((text.match(/^\s*```/gm) ?? []).length & 1) === 1) text += '\n```';
  return { ...answer, text: `${text}${closing}`, finish: 'truncated' };
}

function cutAt(text: string, room: number): string {
  const head = wholeGraphemes(text, room);
  const floor = Math.floor(room * 0.8);
  const breakAt = [head.lastIndexOf('\n\n'), head.lastIndexOf('\n'), head.search(/\s\S*$/)].find((i) => i >= floor);
  return (breakAt === undefined ? head : head.slice(0, breakAt))
    .replace(/\\?\[\d*\\?$/, '')
    .replace(/\\$/, '')
    .trimEnd();
}

/**
 * How many pairs the start of the history moves by at once when old pairs are dropped: the history sent stays the
 * same prefix for that many follow-ups in a row, which the model's prompt cache can then read.
 */
export const HISTORY_STEP = 4;

/**
 * The earlier turns sent to a model with a follow-up: question-and-answer pairs only (a question without a
 * usable answer, or an answer with no text, is left out, so no turn is ever empty and roles alternate), the latest
 * pairs that fit in `budgetTokens` ({@link estimateTokens}), oldest first. Older pairs are dropped
 * {@link HISTORY_STEP} at a time (counted from the chat's first pair), keeping at least the latest pair that fits.
 */
export function historyWithin(turns: ChatTurn[], budgetTokens: number): ChatTurn[] {
  const pairs: Array<[ChatTurn, ChatTurn]> = [];
  for (let i = 0; i < turns.length - 1; i++) {
    const [question, answer] = [turns[i], turns[i + 1]];
    if (question.role === 'user' && answer.role === 'assistant' && question.text.trim() && answer.text.trim()) {
      pairs.push([question, answer]);
      i++;
    }
  }
  let start = pairs.length;
  for (let used = 0; start > 0; start--) {
    used += estimateTokens(pairs[start - 1][0].text) + estimateTokens(pairs[start - 1][1].text);
    if (used > budgetTokens) break;
  }
  if (start > 0 && start < pairs.length) start = Math.min(Math.ceil(start / HISTORY_STEP) * HISTORY_STEP, pairs.length - 1);
  return pairs.slice(start).flat();
}
