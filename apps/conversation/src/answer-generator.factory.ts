import { Logger } from '@nestjs/common';
import { AnswerGenerator } from './answers/answer-generator';
import { ExtractiveAnswerer } from './answers/extractive-answerer';
import { ClaudeAnswerer } from './claude/claude-answerer';
import { ClaudeClient } from './claude/claude.client';
import { ConversationConfig, WRITE_RESERVE_MS } from './conversation.config';

/** The configured answer generator: Claude when `ANSWER_GENERATOR` says so or, on `auto`, when a key is set; else extractive. */
export function answerGenerator(config: ConversationConfig): AnswerGenerator {
  const wantClaude = config.ANSWER_GENERATOR === 'claude' || (config.ANSWER_GENERATOR === 'auto' && !!config.ANTHROPIC_API_KEY);
  if (wantClaude && !config.ANTHROPIC_API_KEY) throw new Error('Missing setting ANTHROPIC_API_KEY: ANSWER_GENERATOR=claude needs it.');
  const logger = new Logger('AnswerGenerator');
  if (!wantClaude) {
    logger.log('answers from the extractive answerer');
    return new ExtractiveAnswerer();
  }
  logger.log(`answers from Claude (${config.ANTHROPIC_MODEL})`);
  const client = new ClaudeClient({
    apiKey: config.ANTHROPIC_API_KEY ?? '',
    baseURL: config.ANTHROPIC_BASE_URL,
    model: config.ANTHROPIC_MODEL,
    maxTokens: config.ANTHROPIC_MAX_TOKENS,
    timeoutMs: config.ANTHROPIC_TIMEOUT_MS,
    maxRetries: config.ANTHROPIC_MAX_RETRIES,
    rewriteModel: config.REWRITE_MODEL,
    rewriteTimeoutMs: config.REWRITE_TIMEOUT_MS,
    reserveMs: WRITE_RESERVE_MS,
  });
  client.warnAboutModels();
  return new ClaudeAnswerer(client, config.ANTHROPIC_MODEL, config.REWRITE_ENABLED);
}
