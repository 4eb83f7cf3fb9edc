import { AnswerGenerator, AnswerRequest, ChatTurn, GeneratedAnswer, notInData } from '../answers/answer-generator';
import { fromChunkMarkers } from '../answers/citations';
import { ClaudeAnswer, ClaudeClient } from './claude.client';
import { conversationMetrics } from '../conversation.metrics';

/**
 * Answers from Claude: the retrieved chunks as `search_result` blocks with citations, whose markers become the
 * answer's citations. Follow-ups are rewritten by the small model unless that is switched off. Model latency and
 * token usage are measured; a model that stays unavailable fails the request (503), so nothing is stored.
 */
export class ClaudeAnswerer implements AnswerGenerator {
  readonly kind = 'claude';
  readonly namesSources = true;

  constructor(
    private readonly client: ClaudeClient,
    private readonly model: string,
    private readonly rewriteEnabled: boolean,
  ) {}

  ready(): Promise<void> {
    return this.client.reachable();
  }

  generate(request: AnswerRequest): Promise<GeneratedAnswer> {
    return this.measured(request, () => this.client.answer(request));
  }

  /** Claude's answer as it streams: each draft is the text so far, its finished blocks' citations as markers. */
  generateStream(request: AnswerRequest, onDraft: (draft: GeneratedAnswer) => Promise<void>, signal: AbortSignal): Promise<GeneratedAnswer> {
    return this.measured(request, () => this.client.answerStream(request, (text) => onDraft(fromChunkMarkers(text, request.chunks.length)), signal));
  }

  private async measured(request: AnswerRequest, call: () => Promise<ClaudeAnswer>): Promise<GeneratedAnswer> {
    if (request.chunks.length === 0) return { text: notInData(request.language), citations: [] };
    const stop = conversationMetrics.modelDuration.startTimer({ model: this.model });
    try {
      const res = await call();
      stop({ outcome: 'ok' });
      conversationMetrics.modelTokens.inc({ model: this.model, kind: 'input' }, res.usage.input);
      conversationMetrics.modelTokens.inc({ model: this.model, kind: 'output' }, res.usage.output);
      conversationMetrics.modelTokens.inc({ model: this.model, kind: 'cache_read' }, res.usage.cacheRead);
      conversationMetrics.modelTokens.inc({ model: this.model, kind: 'cache_write' }, res.usage.cacheWrite);
      return { ...fromChunkMarkers(res.text, request.chunks.length), finish: res.finish };
    } catch (e) {
      stop({ outcome: 'error' });
      throw e;
    }
  }

  async rewrite(question: string, history: ChatTurn[]): Promise<string> {
    if (history.length === 0 || !this.rewriteEnabled) return question;
    return this.client.rewrite(question, history);
  }
}
