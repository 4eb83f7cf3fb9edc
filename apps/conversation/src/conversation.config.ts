import { answerSettings, serviceSettings, ConfigOf, setting } from '@askdata/common';

export const conversationSettings = {
  ...serviceSettings,
  ...answerSettings,
  ANSWER_GENERATOR: setting.oneOf('Which answer generator to use; auto = Claude when ANTHROPIC_API_KEY is set, else extractive.', ['auto', 'claude', 'extractive'] as const, {
    default: 'auto',
  }),
  ANSWER_CONTEXT_ITEMS: setting.int('Retrieved items given to the answer generator.', { default: 6, min: 1, max: 50 }),
  MAX_ANSWER_CHARS: setting.int('Longest answer stored, in characters; a longer one is cut there and marked truncated.', { default: 20000, min: 500, max: 500000 }),
  HISTORY_TOKEN_BUDGET: setting.int(
    'Most tokens of earlier turns sent to the model with a follow-up (estimated as UTF-8 bytes / 3): the latest whole question-and-answer pairs that fit, older ones dropped.',
    { default: 16000, min: 0, max: 1000000 },
  ),
  ANTHROPIC_API_KEY: setting.string('Anthropic API key; enables Claude answers.', { secret: true }),
  ANTHROPIC_BASE_URL: setting.url('Anthropic API base URL.', { protocols: ['http', 'https'] }),
  ANTHROPIC_MODEL: setting.requiredString('Claude model for answers.', { default: 'claude-sonnet-5-5' }),
  ANTHROPIC_MAX_TOKENS: setting.int('Most tokens in one answer.', { default: 1024, min: 16, max: 64000 }),
  ANTHROPIC_TIMEOUT_MS: setting.int("Timeout of one model request (shorter when less of the question's deadline is left).", { default: 25000, min: 1000, max: 600000 }),
  ANTHROPIC_MAX_RETRIES: setting.int("Retries of a model request on timeouts, 429 and 5xx, while the question's deadline allows.", { default: 1, min: 0, max: 10 }),
  REWRITE_ENABLED: setting.bool('Rewrite follow-up questions with the chat history before retrieval.', { default: true }),
  REWRITE_MODEL: setting.requiredString('Small fast Claude model for follow-up rewriting.', { default: 'claude-haiku-5-5' }),
  REWRITE_TIMEOUT_MS: setting.int('Timeout of a follow-up rewrite.', { default: 5000, min: 500, max: 120000 }),
};
export type ConversationConfig = ConfigOf<typeof conversationSettings>;
export const CONVERSATION_CONFIG = Symbol('CONVERSATION_CONFIG');

/** Time kept after the answer for storing it and replying: nothing is written with less than this left. */
export const WRITE_RESERVE_MS = 1000;

/**
 * Settings that are valid alone but not together: with Claude answering, every attempt the model settings allow
 * (and the follow-up rewrite before them) must fit in the question's deadline, else retries that were configured
 * could never happen. One message per problem, naming the settings.
 */
export function conversationSettingProblems(config: ConversationConfig): string[] {
  if (config.ANSWER_GENERATOR === 'extractive' || (config.ANSWER_GENERATOR === 'auto' && !config.ANTHROPIC_API_KEY)) return [];
  const attempts = config.ANTHROPIC_MAX_RETRIES + 1;
  const rewrite = config.REWRITE_ENABLED ? config.REWRITE_TIMEOUT_MS : 0;
  const needed = config.ANTHROPIC_TIMEOUT_MS * attempts + rewrite + WRITE_RESERVE_MS;
  if (needed <= config.ANSWER_TIMEOUT_MS) return [];
  return [
    `Invalid settings ANTHROPIC_TIMEOUT_MS and ANSWER_TIMEOUT_MS: ${attempts} model attempt(s) of ANTHROPIC_TIMEOUT_MS=${config.ANTHROPIC_TIMEOUT_MS} ` +
      `(ANTHROPIC_MAX_RETRIES=${config.ANTHROPIC_MAX_RETRIES})${rewrite ? `, a rewrite of REWRITE_TIMEOUT_MS=${rewrite}` : ''} and ${WRITE_RESERVE_MS} ms to store the answer ` +
      `take ${needed} ms, more than ANSWER_TIMEOUT_MS=${config.ANSWER_TIMEOUT_MS}: lower the model timeout or its retries, or raise ANSWER_TIMEOUT_MS.`,
  ];
}
