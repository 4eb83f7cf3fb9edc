/**
 * Claude models that Anthropic has deprecated or retired, from its model deprecations page
 * (https://platform.claude.com/docs/en/about-claude/model-deprecations) and the models' overview pages: the
 * retirement date (requests fail from that day) and the recommended replacement. Models not listed are taken as
 * active; the Messages API has the last word (`GET /v1/models/{id}` answers 404 for a model it does not serve).
 */
const LIFECYCLE: Record<string, { retires: string; replacement: string }> = {
  'claude-sonnet-4-5': { retires: '2026-11-30', replacement: 'claude-sonnet-5-5' },
  'claude-sonnet-4-5-20250929': { retires: '2026-11-30', replacement: 'claude-sonnet-5-5' },
  'claude-sonnet-4-20250514': { retires: '2026-06-15', replacement: 'claude-sonnet-4-6' },
  'claude-opus-4-20250514': { retires: '2026-06-15', replacement: 'claude-opus-4-8' },
};

export type ModelStatus = { status: 'active' } | { status: 'deprecated' | 'retired'; retires: string; replacement: string };

/** Whether `model` is deprecated (still served until `retires`) or retired (requests fail) on `today`. */
export function modelStatus(model: string, today = new Date()): ModelStatus {
  const entry = LIFECYCLE[model];
  if (!entry) return { status: 'active' };
  return { status: today.toISOString().slice(0, 10) >= entry.retires ? 'retired' : 'deprecated', ...entry };
}
