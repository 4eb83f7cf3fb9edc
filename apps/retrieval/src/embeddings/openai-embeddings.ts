import { EmbeddingProvider } from './embedding-provider';
import { HttpEmbeddingOptions, HttpEmbeddings } from './http-embeddings';

/**
 * Any OpenAI-compatible embeddings endpoint: `POST {url}/embeddings` with `{model, input}` (and `dimensions` when
 * configured), answered with `{data: [{embedding, index}]}`. OpenAI, Ollama (`/v1`), vLLM and TEI speak it.
 */
export function openAiEmbeddings(options: HttpEmbeddingOptions): EmbeddingProvider {
  return new HttpEmbeddings('openai', options, (input) => ({
    model: options.model,
    input,
    ...(options.dimensions !== null ? { dimensions: options.dimensions } : {}),
  }));
}
