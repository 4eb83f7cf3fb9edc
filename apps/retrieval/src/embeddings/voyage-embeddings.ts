import { EmbeddingProvider } from './embedding-provider';
import { HttpEmbeddingOptions, HttpEmbeddings } from './http-embeddings';

/**
 * Voyage AI: `POST https://api.voyageai.com/v1/embeddings` with `{input, model, input_type}`; documents and queries
 * are embedded with input_type `document` and `query`, which the model uses to tell them apart.
 */
export function voyageEmbeddings(options: HttpEmbeddingOptions): EmbeddingProvider {
  return new HttpEmbeddings('voyage', options, (input, kind) => ({
    input,
    model: options.model,
    input_type: kind,
    ...(options.dimensions !== null ? { output_dimension: options.dimensions } : {}),
  }));
}
