import { DEFAULT_EMBEDDING_URL, RetrievalConfig } from '../retrieval.config';
import { EmbeddingProvider } from './embedding-provider';
import { HttpEmbeddingOptions } from './http-embeddings';
import { openAiEmbeddings } from './openai-embeddings';
import { voyageEmbeddings } from './voyage-embeddings';

/** The provider EMBEDDING_PROVIDER names, set up from the settings (`overrides` for tests); null for none. */
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
