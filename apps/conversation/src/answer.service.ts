import { Inject, Injectable, Logger } from '@nestjs/common';
import { RetrievedChunk, SourceView } from '@askdata/contracts';
import { metrics } from '@askdata/common';
import { carryContext, extractAnswer } from './answering/extractive';
import { renderMarkdown } from './answering/render';
import { Answer, AnswerInput, QuestionAnswerer, Turn } from './chats/question-answerer';
import { ClaudeClient } from './claude/claude.client';
import { CONVERSATION_CONFIG, ConversationConfig } from './conversation.config';

export const NOT_IN_DATA = "I couldn't find the answer to that in the data.";

/**
 * The configured answer generator behind one interface: Claude (with citations) when it is configured, else the
 * extractive answerer. Either way the text's `[n]` markers are renumbered 1..n in order of appearance and every
 * one of them exists in `sources`.
 */
@Injectable()
export class AnswerService implements QuestionAnswerer {
  private readonly logger = new Logger(AnswerService.name);
  private readonly claude: ClaudeClient | null;

  constructor(@Inject(CONVERSATION_CONFIG) private readonly config: ConversationConfig) {
    const wantClaude = config.ANSWER_GENERATOR === 'claude' || (config.ANSWER_GENERATOR === 'auto' && !!config.ANTHROPIC_API_KEY);
    if (wantClaude && !config.ANTHROPIC_API_KEY) throw new Error('Missing setting ANTHROPIC_API_KEY: ANSWER_GENERATOR=claude needs it.');
    this.claude = wantClaude
      ? new ClaudeClient({
          apiKey: config.ANTHROPIC_API_KEY ?? '',
          baseURL: config.ANTHROPIC_BASE_URL,
          model: config.ANTHROPIC_MODEL,
          maxTokens: config.ANTHROPIC_MAX_TOKENS,
          timeoutMs: config.ANTHROPIC_TIMEOUT_MS,
          maxRetries: config.ANTHROPIC_MAX_RETRIES,
          rewriteModel: config.REWRITE_MODEL,
          rewriteTimeoutMs: config.REWRITE_TIMEOUT_MS,
        })
      : null;
    this.logger.log(`answers from ${this.claude ? `Claude (${config.ANTHROPIC_MODEL})` : 'the extractive answerer'}`);
  }

  get generator(): 'claude' | 'extractive' {
    return this.claude ? 'claude' : 'extractive';
  }

  async answer(input: AnswerInput): Promise<Answer> {
    if (input.chunks.length === 0) return { text: NOT_IN_DATA, sources: [] };
    if (this.claude) return this.fromClaude(this.claude, input);
    // The question's own words first; the context carried from earlier turns only when they find nothing.
    let { evidence } = extractAnswer(input.question, input.chunks);
    if (evidence.length === 0 && input.standalone !== input.question) evidence = extractAnswer(input.standalone, input.chunks).evidence;
    if (evidence.length === 0) return { text: NOT_IN_DATA, sources: [] };
    const text = evidence.map((e) => `${e.sentence} [${e.chunk + 1}]`).join(' ');
    const cited = new Map(evidence.map((e) => [e.chunk, e.sentence]));
    return cite(text, input.chunks, (i) => cited.get(i));
  }

  async rewrite(question: string, history: Turn[]): Promise<string> {
    if (history.length === 0) return question;
    if (this.claude) return this.config.REWRITE_ENABLED ? this.claude.rewrite(question, history) : question;
    return carryContext(question, history.filter((t) => t.role === 'user').map((t) => t.text));
  }

  html(markdown: string): string {
    return renderMarkdown(markdown);
  }

  private async fromClaude(claude: ClaudeClient, input: AnswerInput): Promise<Answer> {
    const stop = metrics.modelDuration.startTimer({ model: this.config.ANTHROPIC_MODEL });
    try {
      const res = await claude.answer({ question: input.question, history: input.history, chunks: input.chunks, instructions: input.instructions });
      stop({ outcome: 'ok' });
      const model = this.config.ANTHROPIC_MODEL;
      metrics.modelTokens.inc({ model, kind: 'input' }, res.usage.input);
      metrics.modelTokens.inc({ model, kind: 'output' }, res.usage.output);
      metrics.modelTokens.inc({ model, kind: 'cache_read' }, res.usage.cacheRead);
      metrics.modelTokens.inc({ model, kind: 'cache_write' }, res.usage.cacheWrite);
      return cite(res.text, input.chunks, () => undefined);
    } catch (e) {
      stop({ outcome: 'error' });
      throw e;
    }
  }
}

/**
 * Renumbers `[n]` markers (n = position in `chunks`, from 1) to 1..k in order of first appearance, drops markers
 * that point nowhere, and lists the cited chunks as sources.
 */
export function cite(text: string, chunks: RetrievedChunk[], sentenceOf: (chunk: number) => string | undefined): Answer {
  const numbers = new Map<number, number>();
  const sources: SourceView[] = [];
  const renumbered = text.replace(/\[(\d+)\]/g, (_, raw: string) => {
    const i = Number(raw) - 1;
    const chunk = chunks[i];
    if (!chunk) return '';
    let k = numbers.get(i);
    if (k === undefined) {
      k = sources.length + 1;
      numbers.set(i, k);
      sources.push({ index: k, item_id: chunk.item_id, id: chunk.id, collection: chunk.collection, url: chunk.url, snippet: sentenceOf(i) ?? chunk.snippet });
    }
    return `[${k}]`;
  });
  return { text: renumbered.replace(/ {2,}/g, ' ').trim(), sources };
}
