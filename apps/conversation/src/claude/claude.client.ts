// Over 250 lines: one adapter, the Messages API client with its prompts and the reading of its replies and
// streams; splitting would scatter one wire protocol.
import Anthropic, { APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RawMessageStreamEvent,
  SearchResultBlockParam,
  TextBlock,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { Logger } from '@nestjs/common';
import { ErrorCode, FinishReason, RetrievedChunk } from '@askdata/contracts';
import { pastDeadline, ServiceError, timeLeft } from '@askdata/common';
import { escapeCitationMarkers } from '../answers/citations';
import { modelStatus } from './model-lifecycle';

export interface ClaudeSettings {
  apiKey: string;
  baseURL?: string;
  model: string;
  maxTokens: number;
  timeoutMs: number;
  maxRetries: number;
  rewriteModel: string;
  rewriteTimeoutMs: number;
  /** Time kept before the request's deadline for what follows the model call (storing, replying). */
  reserveMs: number;
}

export interface ClaudeTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface AnswerInput {
  question: string;
  history: ClaudeTurn[];
  chunks: RetrievedChunk[];
  instructions: string | null;
  titles?: Record<string, string>;
}

/** Claude's answer: Markdown whose `[n]` markers point at `chunks[n - 1]` of the request. */
export interface ClaudeAnswer {
  text: string;
  finish: FinishReason;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

export const ANSWER_SYSTEM_PROMPT = [
  'You answer questions using only the search results provided in the user turn.',
  'Cite the search results you rely on. If the search results do not contain the answer, say plainly that the',
  'data does not say, and do not guess or use outside knowledge. Answer concisely in Markdown, in the language of',
  'the question, whatever the language of the search results.',
  'A search result that is a record holds one `Label: value` line per field: answer a question about a record from',
  'the field it asks for, giving the value as written and citing that record, and say plainly when the record it',
  'names has no such field.',
].join(' ');

const REWRITE_PROMPT = [
  'Rewrite the last user question of the conversation as one standalone question that can be understood without',
  'the conversation: resolve pronouns and references ("the second one", "it") from earlier turns. Reply with the',
  'question only.',
].join(' ');

/** What a refused answer says when the model gave no text of its own. */
export const REFUSED = 'The model declined to answer this question.';

/**
 * The Messages API through the official SDK: retrieved chunks as `search_result` blocks with citations enabled,
 * the project's instructions in a system prompt, the chat history as prior turns with a cache breakpoint after
 * them (a follow-up's conversation prefix is what repeats). Every call fits in what is left of the bus request's
 * deadline: its timeout is the shorter of the two, and the SDK's retries (timeouts, 429, 5xx) stop at the
 * deadline. What still fails becomes UNAVAILABLE (503): a passing outage, or a configuration problem (a request the
 * API rejects, an unknown or retired model), which is logged as an error.
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

  /** A structured warning for each configured model that is deprecated or retired. */
  warnAboutModels(): void {
    for (const [setting, model] of [
      ['ANTHROPIC_MODEL', this.settings.model],
      ['REWRITE_MODEL', this.settings.rewriteModel],
    ] as const) {
      const s = modelStatus(model);
      if (s.status === 'active') continue;
      const when = s.status === 'retired' ? `was retired on ${s.retires}: requests to it fail` : `is deprecated and retires on ${s.retires}`;
      this.logger.warn({
        msg: `${setting}=${model} ${when}; the recommended replacement is ${s.replacement}`,
        setting,
        model,
        status: s.status,
        retires: s.retires,
        replacement: s.replacement,
      });
    }
  }

  /**
   * Whether the Messages API answers and knows the configured model (`GET /v1/models/{model}`: no tokens spent).
   * Rejects with the reason; used by readiness, so it neither waits long nor retries.
   */
  async reachable(): Promise<void> {
    try {
      await this.client.models.retrieve(this.settings.model, {}, { timeout: Math.min(this.settings.timeoutMs, 3000), maxRetries: 0 });
    } catch (e) {
      if (e instanceof APIError && e.status === 404)
        throw new Error(`the model API does not serve ${this.settings.model} (unknown or retired): set ANTHROPIC_MODEL to a current model`);
      throw new Error(e instanceof APIError && e.status ? `the model API answered ${e.status}` : `the model API is unreachable: ${(e as Error).message}`);
    }
  }

  async answer(input: AnswerInput): Promise<ClaudeAnswer> {
    let res: Message;
    try {
      res = await this.client.messages.create(this.answerParams(input), this.withinDeadline(this.settings.timeoutMs, this.settings.maxRetries));
    } catch (e) {
      throw this.failure(e, this.settings.model);
    }
    return this.toAnswer(res);
  }

  /**
   * The answer through the streaming Messages API: `onText` hears the text so far (finished blocks with their
   * citation markers, then the open block's text) after each delta, and is awaited before the next event is read.
   * The stream stops (UNAVAILABLE, nothing kept) when `signal` aborts, at the deadline, when no event comes for
   * ANTHROPIC_TIMEOUT_MS, or on an `error` event; the answer is read from the events as a whole reply would be.
   */
  async answerStream(input: AnswerInput, onText: (text: string) => Promise<void>, signal: AbortSignal): Promise<ClaudeAnswer> {
    const options = this.withinDeadline(this.settings.timeoutMs, this.settings.maxRetries);
    const quiet = new AbortController();
    const stop = AbortSignal.any([signal, quiet.signal, ...(options.signal ? [options.signal] : [])]);
    let idle: NodeJS.Timeout | undefined;
    const listen = () => {
      clearTimeout(idle);
      idle = setTimeout(() => quiet.abort(), this.settings.timeoutMs);
    };
    // The SDK ends a stream whose signal aborts without an error: why it stopped is told here.
    const stopped = (): Error | undefined => {
      if (signal.aborted) return signal.reason as Error;
      if (quiet.signal.aborted) {
        this.logger.warn(`the model stream went quiet for ${this.settings.timeoutMs} ms`);
        return new ServiceError(ErrorCode.Unavailable, 'The answer model stopped answering. Nothing was stored; try again shortly.');
      }
      return options.signal?.aborted ? pastDeadline('the model answered') : undefined;
    };
    let res: Message | undefined;
    try {
      listen();
      const stream = await this.client.messages.create({ ...this.answerParams(input), stream: true }, { ...options, signal: stop });
      for await (const event of stream) {
        listen();
        res = applyEvent(res, event);
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta' && res) await onText(draftText(res.content));
      }
    } catch (e) {
      throw stopped() ?? this.failure(e, this.settings.model);
    } finally {
      clearTimeout(idle);
    }
    const why = stopped();
    if (why) throw why;
    if (!res || !res.stop_reason) throw this.unusable('a stream that ended before the message did');
    return this.toAnswer(res);
  }

  private answerParams(input: AnswerInput): MessageCreateParamsNonStreaming {
    const system: TextBlockParam[] = [
      {
        type: 'text',
        text: input.instructions ? `${ANSWER_SYSTEM_PROMPT}\n\nInstructions from the data owner:\n${input.instructions}` : ANSWER_SYSTEM_PROMPT,
      },
    ];
    const results: SearchResultBlockParam[] = input.chunks.map((c) => ({
      type: 'search_result',
      source: c.url ?? `${c.collection}/${c.item_id}`,
      title: input.titles?.[c.id] || c.item_id,
      content: [{ type: 'text', text: c.text }],
      citations: { enabled: true },
    }));
    const messages: MessageParam[] = [...historyMessages(input.history), { role: 'user', content: [...results, { type: 'text', text: input.question }] }];
    return { model: this.settings.model, max_tokens: this.settings.maxTokens, system, messages };
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
        this.withinDeadline(this.settings.rewriteTimeoutMs, 1, this.settings.rewriteTimeoutMs),
      );
      const text = textBlocks(res)
        .map((b) => b.text)
        .join('')
        .trim();
      return text || question;
    } catch (e) {
      this.logger.warn(`follow-up rewrite failed, using the question as asked: ${(e as Error).message}`);
      return question;
    }
  }

  /**
   * Request options that end the call, retries included, before the bus request's deadline (less the reserve)
   * and within `totalMs`: each attempt's timeout is the shorter of the setting and what is left, and the signal
   * stops the rest.
   */
  private withinDeadline(timeoutMs: number, maxRetries: number, totalMs = Infinity): Anthropic.RequestOptions {
    const left = Math.min(timeLeft() - this.settings.reserveMs, totalMs);
    if (left <= 0) throw pastDeadline('the model was asked');
    if (!Number.isFinite(left)) return { timeout: timeoutMs, maxRetries };
    return { timeout: Math.max(1, Math.min(timeoutMs, Math.floor(left))), maxRetries, signal: AbortSignal.timeout(Math.floor(left)) };
  }

  /**
   * The answer in a reply: the text blocks with their citations as markers, and how it ended. A reply of no
   * usable text is a failure, unless the model refused (its own words, or {@link REFUSED}).
   */
  private toAnswer(res: Message): ClaudeAnswer {
    if (!res || !Array.isArray(res.content) || typeof res.usage !== 'object' || res.usage === null) {
      throw this.unusable(`a reply without content or usage (stop_reason ${String(res?.stop_reason)})`);
    }
    const text = withMarkers(textBlocks(res));
    const finish: FinishReason =
      res.stop_reason === 'refusal' ? 'refused' : res.stop_reason === 'max_tokens' || res.stop_reason === 'model_context_window_exceeded' ? 'truncated' : 'complete';
    if (!text && finish !== 'refused') throw this.unusable(`an empty answer (stop_reason ${String(res.stop_reason)})`);
    return {
      text: text || REFUSED,
      finish,
      usage: {
        input: res.usage.input_tokens ?? 0,
        output: res.usage.output_tokens ?? 0,
        cacheRead: res.usage.cache_read_input_tokens ?? 0,
        cacheWrite: res.usage.cache_creation_input_tokens ?? 0,
      },
    };
  }

  private unusable(what: string): ServiceError {
    this.logger.warn(`the model returned ${what}; nothing is stored`);
    return new ServiceError(ErrorCode.Unavailable, 'The answer model returned no usable answer. Try again shortly.');
  }

  /**
   * UNAVAILABLE, saying which kind: out of time; a configuration problem (a request the API rejects for good:
   * 400, 401, 403, 404, 413, 422), logged as an error; or a passing outage.
   */
  private failure(e: unknown, model: string): ServiceError {
    if (e instanceof ServiceError) return e;
    if (e instanceof APIUserAbortError) return pastDeadline('the model answered');
    const status = e instanceof APIError ? (e as APIError).status : undefined;
    if (status === 404) {
      this.logger.error(`the model API does not serve ${model} (unknown or retired): ${(e as Error).message}`);
      return new ServiceError(ErrorCode.Unavailable, `The answer model ${model} is unknown or retired: the service's configuration must name a current model.`);
    }
    if (status !== undefined && [400, 401, 403, 413, 422].includes(status)) {
      this.logger.error(`the model API rejected the request (${status}), a configuration problem: ${(e as Error).message}`);
      return new ServiceError(ErrorCode.Unavailable, `The answer model rejected the request (${status}): a configuration problem of the service, not a passing outage.`);
    }
    this.logger.warn(`model request failed${status ? ` (${status})` : ''}: ${(e as Error).message}`);
    return new ServiceError(ErrorCode.Unavailable, 'The answer model is unavailable right now. Try again shortly.');
  }
}

/**
 * The chat history as prior turns, the last one marked as a cache breakpoint: on the next follow-up, the system
 * prompt and these turns are the same prefix, read from the cache (once long enough for the model to cache).
 */
function historyMessages(history: ClaudeTurn[]): MessageParam[] {
  return history.map((t, i): MessageParam =>
    i === history.length - 1 ? { role: t.role, content: [{ type: 'text', text: t.text, cache_control: { type: 'ephemeral' } }] } : { role: t.role, content: t.text },
  );
}

function textBlocks(res: Message): TextBlock[] {
  return res.content.filter((b): b is TextBlock => b?.type === 'text' && typeof b.text === 'string');
}

/**
 * The text blocks joined, `[n]` (1-based search result number) appended after each block for the results it
 * cites. Bracketed numbers the model typed itself are escaped: only citations make markers.
 */
export function withMarkers(blocks: TextBlock[]): string {
  let out = '';
  for (const block of blocks) {
    out += escapeCitationMarkers(block.text);
    const cited = new Set<number>();
    for (const c of block.citations ?? []) {
      if (c.type === 'search_result_location') cited.add(c.search_result_index + 1);
    }
    if (cited.size) out = out.replace(/\s+$/, '') + [...cited].map((n) => `[${n}]`).join('') + (/\s$/.test(block.text) ? ' ' : '');
  }
  return out.trim();
}

/** The message as the stream's events so far make it (a whole reply's shape), or undefined before `message_start`. */
function applyEvent(res: Message | undefined, event: RawMessageStreamEvent): Message | undefined {
  if (event.type === 'message_start') return { ...event.message, content: [] };
  if (!res) return res;
  if (event.type === 'content_block_start') {
    res.content[event.index] = event.content_block.type === 'text' ? { ...event.content_block, citations: [...(event.content_block.citations ?? [])] } : event.content_block;
  } else if (event.type === 'content_block_delta') {
    const block = res.content[event.index];
    if (block?.type !== 'text') return res;
    if (event.delta.type === 'text_delta') block.text += event.delta.text;
    else if (event.delta.type === 'citations_delta') (block.citations ??= []).push(event.delta.citation);
  } else if (event.type === 'message_delta') {
    res.stop_reason = event.delta.stop_reason;
    res.usage = { ...res.usage, output_tokens: event.usage.output_tokens ?? res.usage.output_tokens };
  }
  return res;
}

/**
 * The text of a streamed answer so far: finished blocks with their markers, then the open (last) block's text
 * without its citations, which are placed when it ends.
 */
function draftText(content: Message['content']): string {
  const blocks = content.filter((b): b is TextBlock => b?.type === 'text');
  if (blocks.length === 0) return '';
  const open = blocks[blocks.length - 1];
  return withMarkers([...blocks.slice(0, -1), { ...open, citations: null }]);
}
