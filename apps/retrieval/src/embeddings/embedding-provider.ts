import { DEFAULT_EMBEDDING_URL, RetrievalConfig } from '../retrieval.config';
import { HttpEmbeddingOptions } from './http-embeddings';
import { openAiEmbeddings } from './openai-embeddings';
import { voyageEmbeddings } from './voyage-embeddings';

/**
 * Dense embeddings of texts. Documents and queries are embedded separately because some models (Voyage AI)
 * embed them differently. Every failure is a `ServiceError` with code UNAVAILABLE (the API answers 503).
 */
export interface EmbeddingProvider {
  /** openai or voyage, for messages. */
  readonly name: string;
  readonly model: string;
  /** One vector per text, in order; requests are batched. */
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/** Injection token of the configured provider: an {@link EmbeddingProvider}, or null when EMBEDDING_PROVIDER is none. */
export const EMBEDDINGS = Symbol('EMBEDDINGS');

export function createEmbeddingProvider(config: RetrievalConfig, overrides: Partial<HttpEmbeddingOptions> = {}): EmbeddingProvider | null {
  const provider = config.EMBEDDING_PROVIDER;
  if (provider === 'none') return null;
  const options: HttpEmbeddingOptions = {
    url: (config.EMBEDDING_URL ?? DEFAULT_EMBEDDING_URL[provider]).replace(/\/+$/, ''),
    model: config.EMBEDDING_MODEL ?? '',
    apiKey: config.EMBEDDING_API_KEY,
    dimensions: config.EMBEDDING_DIMENSIONS || null,
    batchSize: config.EMBEDDING_BATCH_SIZE,
    timeoutMs: config.EMBEDDING_TIMEOUT_MS,
    retries: config.EMBEDDING_RETRIES,
    backoffMs: 500,
    ...overrides,
  };
  return provider === 'openai' ? openAiEmbeddings(options) : voyageEmbeddings(options);
}
