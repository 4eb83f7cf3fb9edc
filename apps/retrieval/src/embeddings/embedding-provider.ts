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
