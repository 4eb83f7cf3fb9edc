import { Counter, Histogram } from 'prom-client';
import { registry } from '@askdata/common';

/** Conversation's metrics. */
export const conversationMetrics = {
  modelDuration: new Histogram({
    name: 'askdata_model_request_duration_seconds',
    help: 'Answer-model request latency, by model and outcome.',
    labelNames: ['model', 'outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  }),
  modelTokens: new Counter({
    name: 'askdata_model_tokens_total',
    help: 'Answer-model token usage, by model and kind (input, output, cache_read, cache_write).',
    labelNames: ['model', 'kind'] as const,
    registers: [registry],
  }),
};
