import { ConfigOf, serviceSettings, setting } from '@askdata/common';

export const retrievalSettings = {
  ...serviceSettings,
  SEARCH_BACKEND: setting.oneOf('Where the index lives (the Qdrant backend is not implemented yet).', ['postgres'] as const, {
    default: 'postgres',
  }),
  BM25_K1: setting.number('BM25 term-frequency saturation (k1).', { default: 0.9, min: 0, max: 10 }),
  BM25_B: setting.number('BM25 length normalisation (b).', { default: 0.4, min: 0, max: 1 }),
};
export type RetrievalConfig = ConfigOf<typeof retrievalSettings>;
export const RETRIEVAL_CONFIG = Symbol('RETRIEVAL_CONFIG');
