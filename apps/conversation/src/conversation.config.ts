import { serviceSettings, ConfigOf, setting } from '@askdata/common';

export const conversationSettings = {
  ...serviceSettings,
  ANSWER_GENERATOR: setting.oneOf('Which answer generator to use; auto = Claude when ANTHROPIC_API_KEY is set, else extractive.', ['auto', 'claude', 'extractive'] as const, { default: 'auto' }),
  ANSWER_CONTEXT_ITEMS: setting.int('Retrieved items given to the answer generator.', { default: 6, min: 1, max: 50 }),
  ANTHROPIC_API_KEY: setting.string('Anthropic API key; enables Claude answers.', { secret: true }),
  ANTHROPIC_BASE_URL: setting.url('Anthropic API base URL.', { protocols: ['http', 'https'] }),
  ANTHROPIC_MODEL: setting.requiredString('Claude model for answers.', { default: 'claude-sonnet-4-5' }),
  ANTHROPIC_MAX_TOKENS: setting.int('Most tokens in one answer.', { default: 1024, min: 16, max: 64000 }),
  ANTHROPIC_TIMEOUT_MS: setting.int('Timeout of one model request.', { default: 60000, min: 1000, max: 600000 }),
  ANTHROPIC_MAX_RETRIES: setting.int('Retries of a model request on timeouts, 429 and 5xx.', { default: 2, min: 0, max: 10 }),
  REWRITE_ENABLED: setting.bool('Rewrite follow-up questions with the chat history before retrieval.', { default: true }),
  REWRITE_MODEL: setting.requiredString('Small fast Claude model for follow-up rewriting.', { default: 'claude-haiku-4-5' }),
  REWRITE_TIMEOUT_MS: setting.int('Timeout of a follow-up rewrite.', { default: 10000, min: 500, max: 120000 }),
};
export type ConversationConfig = ConfigOf<typeof conversationSettings>;
export const CONVERSATION_CONFIG = Symbol('CONVERSATION_CONFIG');
