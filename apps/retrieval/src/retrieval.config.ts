import { ConfigOf, serviceSettings, setting } from '@askdata/common';

export const retrievalSettings = {
  ...serviceSettings,
  SEARCH_BACKEND: setting.oneOf('Where the index lives.', ['postgres', 'qdrant'] as const, { default: 'postgres' }),
  BM25_K1: setting.number('BM25 term-frequency saturation (k1).', { default: 0.9, min: 0, max: 10 }),
  BM25_B: setting.number('BM25 length normalisation (b).', { default: 0.4, min: 0, max: 1 }),
  QDRANT_URL: setting.url('Qdrant base URL (SEARCH_BACKEND=qdrant).', { protocols: ['http', 'https'] }),
  QDRANT_API_KEY: setting.string('Qdrant API key.', { secret: true }),
  EMBEDDING_PROVIDER: setting.oneOf('Dense embeddings for hybrid search (Qdrant backend).', ['none', 'openai', 'voyage'] as const, {
    default: 'none',
  }),
  EMBEDDING_URL: setting.url('Base URL of the embedding API (OpenAI-compatible /embeddings, or Voyage).', {
    protocols: ['http', 'https'],
  }),
  EMBEDDING_API_KEY: setting.string('Embedding API key.', { secret: true }),
  EMBEDDING_MODEL: setting.string('Embedding model name.'),
  EMBEDDING_DIMENSIONS: setting.int('Embedding vector size.', { default: 1024, min: 1, max: 8192 }),
  EMBEDDING_BATCH: setting.int('Texts per embedding request.', { default: 64, min: 1, max: 2048 }),
  EMBEDDING_TIMEOUT_MS: setting.int('Timeout of one embedding request.', { default: 30000, min: 100, max: 600000 }),
};
export type RetrievalConfig = ConfigOf<typeof retrievalSettings>;
export const RETRIEVAL_CONFIG = Symbol('RETRIEVAL_CONFIG');
