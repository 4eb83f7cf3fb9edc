import { ErrorCode, FinishReason, RetrievedChunk } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { CUT_OFF_NOTE, boundAnswer } from './bounds';
import { CitedAnswer, toSources } from './citations';
import { GeneratedAnswer } from './answer-generator';

/** The part of a text that more text cannot change: up to its last whitespace before a word. */
const SETTLED = /^[\s\S]*\s(?=\S)/;
/** Where a written answer is cut into pieces when it is sent at once: after each sentence (and its markers). */
const SENTENCE_END = /(?<=[.!?。！？](?:\[\d+\])*\s+)/;

/**
 * Writes an answer out as it is generated, so that what is sent is exactly what is stored. A generator gives drafts
 * (the answer so far, in its own form); each is put in its public form (`toSources` of `boundAnswer`, as a whole
 * answer is) and only its settled part is sent: text up to the last whitespace before a word, which later text
 * does not change (markers attach to the word before them, trailing spaces are trimmed, a cut at the length limit
 * falls at a break after 80% of it, so nothing past that point is sent before the end). `finish` sends the rest of
 * the final answer and returns it; were the final answer ever not to continue what was sent, it fails (nothing is
 * stored) rather than store what the client did not see.
 */
export class AnswerWriter {
  private sent = '';
  /** Text past this many characters is sent only at the end (it could be cut). */
  private readonly cap: number;

  constructor(
    private readonly chunks: RetrievedChunk[],
    private readonly maxChars: number,
    private readonly send: (text: string) => Promise<void>,
  ) {
    this.cap = Math.floor((maxChars - CUT_OFF_NOTE.length - 6) * 0.8) - 16;
  }

  /** What has been sent so far. */
  get text(): string {
    return this.sent;
  }

  async draft(draft: GeneratedAnswer): Promise<void> {
    const text = toSources(draft, this.chunks).text;
    const settled = SETTLED.exec(text.slice(0, this.cap))?.[0] ?? '';
    if (settled.length > this.sent.length && settled.startsWith(this.sent)) await this.write(settled.slice(this.sent.length));
  }

  async finish(answer: GeneratedAnswer): Promise<CitedAnswer & { finish: FinishReason }> {
    const bounded = boundAnswer(answer, this.maxChars);
    const cited = { ...toSources(bounded, this.chunks), finish: bounded.finish ?? 'complete' };
    if (!cited.text.startsWith(this.sent)) {
      throw new ServiceError(ErrorCode.Unavailable, 'The answer changed after part of it was sent. Nothing was stored; ask again.');
    }
    for (const piece of cited.text.slice(this.sent.length).split(SENTENCE_END)) if (piece) await this.write(piece);
    return cited;
  }

  private async write(text: string): Promise<void> {
    this.sent += text;
    await this.send(text);
  }
}
