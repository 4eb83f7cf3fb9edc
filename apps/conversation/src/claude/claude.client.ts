import Anthropic, { APIError } from '@anthropic-ai/sdk';
import type { MessageParam, SearchResultBlockParam, TextBlock, TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { Logger } from '@nestjs/common';
import { ErrorCode, RetrievedChunk } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';

export interface ClaudeSettings {
  apiKey: string;
  baseURL?: string;
  model: string;
  maxTokens: number;
  timeoutMs: number;
  maxRetries: number;
  rewriteModel: string;
  rewriteTimeoutMs: number;
}

export interface ClaudeTurn {
  role: 'user' | 'assistant';
  text: string;
}

/** Claude's answer: Markdown whose `[n]` markers point at `chunks[n - 1]` of the request. */
export interface ClaudeAnswer {
  text: string;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

export const ANSWER_SYSTEM_PROMPT = [
  'You answer questions using only the search results provided in the user turn.',
  'Cite the search results you rely on. If the search results do not contain the answer, say plainly that the',
  'data does not say, and do not guess or use outside knowledge. Answer concisely in Markdown, in the language of',
  'the question, whatever the language of the search results.',
].join(' ');

const REWRITE_PROMPT = [
  'Rewrite the last user question of the conversation as one standalone question that can be understood without',
  'the conversation: resolve pronouns and references ("the second one", "it") from earlier turns. Reply with the',
  'question only.',
].join(' ');

/**
 * The Messages API through the official SDK: retrieved chunks as `search_result` blocks with citations enabled,
 * the project's instructions in a system prompt marked for caching, the chat history as prior turns. Timeouts,
 * 429 and 5xx are retried by the SDK with backoff; what still fails becomes UNAVAILABLE (503).
 */
export class ClaudeClient {
  private readonly logger = new Logger(ClaudeClient.name);
  private readonly client: Anthropic;

  constructor(private readonly settings: ClaudeSettings) {
    this.client = new Anthropic({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
    });
  }

  /**
   * Whether the Messages API answers and knows the configured model (`GET /v1/models/{model}`: no tokens spent).
   * Rejects with the reason; used by readiness, so it neither waits long nor retries.
   */
  async reachable(): Promise<void> {
    try {
      await this.client.models.retrieve(this.settings.model, {}, { timeout: Math.min(this.settings.timeoutMs, 3000), maxRetries: 0 });
    } catch (e) {
      throw new Error(e instanceof APIError && e.status ? `the model API answered ${e.status}` : `the model API is unreachable: ${(e as Error).message}`);
    }
  }

  async answer(input: { question: string; history: ClaudeTurn[]; chunks: RetrievedChunk[]; instructions: string | null }): Promise<ClaudeAnswer> {
    const system: TextBlockParam[] = [
      {
        type: 'text',
        text: input.instructions ? `${ANSWER_SYSTEM_PROMPT}\n\nInstructions from the data owner:\n${input.instructions}` : ANSWER_SYSTEM_PROMPT,
        cache_control: { type: 'ephemeral' },
      },
    ];
    const results: SearchResultBlockParam[] = input.chunks.map((c) => ({
      type: 'search_result',
      source: c.url ?? `${c.collection}/${c.item_id}`,
      title: `${c.collection}: ${c.item_id}`,
      content: [{ type: 'text', text: c.text }],
      citations: { enabled: true },
    }));
    const messages: MessageParam[] = [
      ...input.history.map((t): MessageParam => ({ role: t.role, content: t.text })),
      { role: 'user', content: [...results, { type: 'text', text: input.question }] },
    ];
    try {
      const res = await this.client.messages.create({ model: this.settings.model, max_tokens: this.settings.maxTokens, system, messages });
      return {
        text: withMarkers(res.content.filter((b): b is TextBlock => b.type === 'text')),
        usage: {
          input: res.usage.input_tokens,
          output: res.usage.output_tokens,
          cacheRead: res.usage.cache_read_input_tokens ?? 0,
          cacheWrite: res.usage.cache_creation_input_tokens ?? 0,
        },
      };
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  /** A standalone version of the follow-up; on any failure the question is used as asked. */
  async rewrite(question: string, history: ClaudeTurn[]): Promise<string> {
    if (history.length === 0) return question;
    const transcript = history.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.text}`).join('\n');
    try {
      const res = await this.client.messages.create(
        {
          model: this.settings.rewriteModel,
          max_tokens: 200,
          system: REWRITE_PROMPT,
          messages: [{ role: 'user', content: `${transcript}\nUser: ${question}` }],
        },
        { timeout: this.settings.rewriteTimeoutMs, maxRetries: 1 },
      );
      const text = res.content
        .filter((b): b is TextBlock => b.type === 'text')
        .map((b) => b.text)
        .join('')
        .trim();
      return text || question;
    } catch (e) {
      this.logger.warn(`follow-up rewrite failed, using the question as asked: ${(e as Error).message}`);
      return question;
    }
  }

  private unavailable(e: unknown): ServiceError {
    const status = e instanceof APIError ? e.status : undefined;
    this.logger.warn(`model request failed${status ? ` (${status})` : ''}: ${(e as Error).message}`);
    return new ServiceError(ErrorCode.Unavailable, 'The answer model is unavailable right now. Try again shortly.');
  }
}

/** Appends `[n]` (1-based search result number) after each text block for the results it cites. */
export function withMarkers(blocks: TextBlock[]): string {
  let out = '';
  for (const block of blocks) {
    out += block.text;
    const cited = new Set<number>();
    for (const c of block.citations ?? []) {
      if (c.type === 'search_result_location') cited.add(c.search_result_index + 1);
    }
    if (cited.size) out = out.replace(/\s+$/, '') + [...cited].map((n) => `[${n}]`).join('') + (/\s$/.test(block.text) ? ' ' : '');
  }
  return out.trim();
}
