import { loadConfig } from '@askdata/common';
import { conversationSettingProblems, conversationSettings } from './conversation.config';

const load = (env: Record<string, string>) => loadConfig(conversationSettings, env);

describe('conversation settings checked against each other', () => {
  it('accepts the defaults with Claude answering', () => {
    expect(conversationSettingProblems(load({ ANTHROPIC_API_KEY: 'sk-x' }))).toEqual([]);
  });

  it('refuses model attempts that cannot fit in the question deadline, naming both settings', () => {
    const problems = conversationSettingProblems(load({ ANTHROPIC_API_KEY: 'sk-x', ANTHROPIC_TIMEOUT_MS: '60000', ANTHROPIC_MAX_RETRIES: '2' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/ANTHROPIC_TIMEOUT_MS=60000/);
    expect(problems[0]).toMatch(/ANSWER_TIMEOUT_MS=60000/);
    expect(problems[0]).toMatch(/ANTHROPIC_MAX_RETRIES=2/);
    expect(conversationSettingProblems(load({ ANTHROPIC_API_KEY: 'sk-x', ANTHROPIC_TIMEOUT_MS: '60000', ANSWER_TIMEOUT_MS: '200000', ANTHROPIC_MAX_RETRIES: '2' }))).toEqual([]);
  });

  it('does not hold the extractive answerer to model settings', () => {
    expect(conversationSettingProblems(load({ ANTHROPIC_TIMEOUT_MS: '600000' }))).toEqual([]);
  });
});
