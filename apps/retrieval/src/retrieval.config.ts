import { ConfigError, ConfigOf, serviceSettings, setting } from '@askdata/common';

export const retrievalSettings = {
  ...serviceSettings,
  SEARCH_BACKEND: setting.oneOf(
    "Where the index lives: PostgreSQL (BM25 in SQL, the service's own database) or Qdrant (sparse BM25, plus dense vectors when EMBEDDING_PROVIDER is set, fused with RRF).",
    ['postgres', 'qdrant'] as const,
    { default: 'postgres' },
  ),
  BM25_K1: setting.number('BM25 term-frequency saturation (k1).', { default: 0.9, min: 0, max: 10 }),
  BM25_B: setting.number('BM25 length normalisation (b).', { default: 0.4, min: 0, max: 1 }),
  BM25_DEPTH: setting.int('Postings read per query term, highest impact first, to find candidates that are then scored exactly (0: all of them).', {
    default: 1000,
    min: 0,
    max: 1_000_000,
  }),
  SEARCH_MEMORY_MB: setting.int(
    "PostgreSQL backend: memory for indexes held in this process's memory, where searches are scored (exact BM25, every posting) instead of in SQL; an index is loaded on its first search (answered in SQL meanwhile), the least recently searched let go when others need the room, and one that does not fit alone stays in SQL. 0: every search in SQL.",
    { default: 256, min: 0, max: 1_048_576 },
  ),
  SEARCH_ROWS_MB: setting.int(
    "PostgreSQL backend: memory for the rows of chunks that searches scored in memory found (text, url, metadata) and their texts cut for snippets, kept so that a hit shown again needs no statement and no analysis, the least recently found let go first; an index's rows are read ahead on its first search up to half of it (whole when they fit, and then the rows this process writes to it are kept as they commit while that holds). 0: every hit's row read from the database.",
    { default: 64, min: 0, max: 1_048_576 },
  ),
  INDEX_PREPARATION_THREAD: setting.bool(
    "PostgreSQL backend: analyse index batches and compute what they write on a thread of their own, so that searches and the bus (and, standalone, the other services and the embedded database's statements) are not held up meanwhile; otherwise on the event loop, in slices.",
    { default: true },
  ),
  INDEX_PREPARATION_TIMEOUT_MS: setting.int(
    "How long the preparation thread may owe batches without answering any before it is taken to be stuck: it is stopped and started again, and the batches it held fail (and are retried). A batch written for a caller waits no longer than the caller's deadline.",
    { default: 60000, min: 1000, max: 3600000 },
  ),
  INDEX_VACUUM_ROWS: setting.int(
    "PostgreSQL backend: postings written or removed after which the index tables are analysed in the background, keeping the planner's statistics current as the index grows (and vacuumed too if a tenth of them were removed, reclaiming the rows replaced blocks leave); they are vacuumed once writing pauses with a tenth of that not yet vacuumed (standalone's embedded database has no autovacuum). 0: never (leave it to autovacuum).",
    { default: 1_000_000, min: 0, max: 1_000_000_000 },
  ),
  BLOCK_MERGE_QUIET_MS: setting.int(
    'PostgreSQL backend: how long writes to an index pause before the small posting blocks its batches wrote (each index batch writes a row per term it holds) are merged into fewer rows in the background, in transactions of about 25 ms; 0: never merged (nor after BLOCK_MERGE_BATCHES).',
    { default: 5000, min: 0, max: 3_600_000 },
  ),
  BLOCK_MERGE_BATCHES: setting.int(
    'PostgreSQL backend: index batches written to an index after which its small posting blocks are merged even while writes go on (a trickle of small upserts writes a row per term of each one), taking turns with the writes.',
    { default: 256, min: 1, max: 1_000_000 },
  ),
  BLOCK_MERGE_POSTINGS: setting.int(
    'PostgreSQL backend: a posting block holding fewer postings than this is merged with the newer blocks of its term (band and collection) that are small too.',
    { default: 64, min: 2, max: 100_000 },
  ),
  POSTING_KEY_REBUILD_RATIO: setting.int(
    "PostgreSQL backend: once the index tables have been vacuumed in a pause, the posting blocks' primary key is rebuilt online (REINDEX CONCURRENTLY) if it takes more than this many times the room its live rows need (merging posting blocks leaves most of it empty after a load); 0: never. Standalone: 0 by default (the rebuild would hold the embedded database's single session while it runs).",
    { default: 3, min: 0, max: 1000 },
  ),
  POSTING_BLOCKS_REWRITE_RATIO: setting.int(
    "PostgreSQL backend: once the index tables have been vacuumed in a pause, the posting blocks' table is rewritten with its key (VACUUM FULL) if either takes more than this many times the room its live rows need (merging posting blocks leaves most of both empty after a load, and a vacuum gives back only empty pages at a table's end), and if its live rows take at most POSTING_BLOCKS_REWRITE_MAX_MB; 0: never. The rewrite locks the table while it runs: index writes of every project, searches scored in SQL (of an index not held in memory) and index rebuilds wait for it.",
    { default: 3, min: 0, max: 1000 },
  ),
  POSTING_BLOCKS_REWRITE_MAX_MB: setting.int(
    "PostgreSQL backend: the largest posting blocks' table (its live rows, as the planner's statistics tell) rewritten in a pause (POSTING_BLOCKS_REWRITE_RATIO): the rewrite's time, and so the wait of what it locks, grows with them (2 s at 100,000 items of ~1.2 KB, about 117 MB, on this project's benchmark machine). A larger table keeps its empty room (its key is still rebuilt online where POSTING_KEY_REBUILD_RATIO allows); see docs/deploy.md for reclaiming it in a maintenance window.",
    { default: 128, min: 1, max: 1_000_000 },
  ),
  REINDEX_BATCH_ITEMS: setting.int("Items a rebuild of a project's index copies at a time from the live index.", { default: 500, min: 1, max: 10000 }),
  REINDEX_POLL_MS: setting.int(
    'How often each replica looks for index rebuilds to start (projects indexed by another analyzer version or in the other SEARCH_BACKEND) or to take over (their replica stopped); 0: never run rebuilds here.',
    { default: 5000, min: 0, max: 3_600_000 },
  ),
  REINDEX_LEASE_MS: setting.int('How long a replica holds a rebuild without renewing it (every third of that) before another takes it over.', {
    default: 30000,
    min: 1000,
    max: 3_600_000,
  }),
  REINDEX_SETTLE_MS: setting.int(
    'Distributed mode: how long a rebuild waits before copying, so that index writes other replicas began before it (which go to the live index only) have ended; at least the longest an index write may take (BUS_TIMEOUT_MS).',
    { default: 15000, min: 0, max: 600000 },
  ),
  REINDEX_RETIRE_MS: setting.int('How long an index replaced by a rebuild is kept (searches and writes begun before may still use it) before it is removed.', {
    default: 60000,
    min: 0,
    max: 86_400_000,
  }),
  BM25_AVG_LENGTH: setting.number(
    'The average chunk length (in words) that BM25 length normalisation assumes where no statistic is kept: in the Qdrant backend, and for the runs of characters of words outside English in the PostgreSQL one.',
    {
      default: 100,
      min: 1,
      max: 100000,
    },
  ),
  QDRANT_URL: setting.url('Qdrant backend: the REST endpoint of Qdrant.', { default: 'http://127.0.0.1:6333', protocols: ['http', 'https'] }),
  QDRANT_API_KEY: setting.string('Qdrant backend: API key (sent as the api-key header).', { secret: true }),
  QDRANT_TIMEOUT_MS: setting.int('Qdrant backend: how long a request to Qdrant may take.', { default: 10000, min: 100, max: 600000 }),
  EMBEDDING_PROVIDER: setting.oneOf(
    'Dense embeddings for hybrid search (Qdrant backend): none, any OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, vLLM, TEI), or Voyage AI.',
    ['none', 'openai', 'voyage'] as const,
    { default: 'none' },
  ),
  EMBEDDING_URL: setting.url(
    'Base URL of the embeddings API; requests go to {url}/embeddings. Default: https://api.openai.com/v1 (openai) or https://api.voyageai.com/v1 (voyage).',
    { protocols: ['http', 'https'] },
  ),
  EMBEDDING_MODEL: setting.string('Embedding model name, e.g. text-embedding-3-small, nomic-embed-text, voyage-3.5 (required with a provider).'),
  EMBEDDING_API_KEY: setting.string('API key of the embeddings API (required by Voyage AI and api.openai.com).', { secret: true }),
  EMBEDDING_DIMENSIONS: setting.int('Size of the embedding vectors, requested from the model (OpenAI dimensions, Voyage output_dimension); 0: whatever size the model returns.', {
    default: 0,
    min: 0,
    max: 65536,
  }),
  EMBEDDING_BATCH_SIZE: setting.int('Texts per embeddings request.', { default: 64, min: 1, max: 1000 }),
  EMBEDDING_TIMEOUT_MS: setting.int('How long one embeddings request may take.', { default: 30000, min: 100, max: 600000 }),
  EMBEDDING_RETRIES: setting.int('Retries of an embeddings request after a 429, a 5xx, a timeout or a network error, with backoff.', {
    default: 3,
    min: 0,
    max: 10,
  }),
};
export type RetrievalConfig = ConfigOf<typeof retrievalSettings>;
export const RETRIEVAL_CONFIG = Symbol('RETRIEVAL_CONFIG');

export const DEFAULT_EMBEDDING_URL = { openai: 'https://api.openai.com/v1', voyage: 'https://api.voyageai.com/v1' } as const;

/** Settings that are valid one by one but not together; the service refuses to start with them, naming each. */
export function checkRetrievalConfig(config: RetrievalConfig): void {
  const problems: string[] = [];
  const provider = config.EMBEDDING_PROVIDER;
  if (provider !== 'none') {
    if (config.SEARCH_BACKEND !== 'qdrant') {
      problems.push(`Invalid setting EMBEDDING_PROVIDER: ${provider} needs SEARCH_BACKEND=qdrant (the PostgreSQL backend ranks with BM25 only).`);
    }
    if (!config.EMBEDDING_MODEL) problems.push(`Missing setting EMBEDDING_MODEL: the ${provider} embedding provider needs a model name.`);
    const url = config.EMBEDDING_URL ?? DEFAULT_EMBEDDING_URL[provider];
    const hosted = provider === 'voyage' || new URL(url).hostname === 'api.openai.com';
    if (hosted && !config.EMBEDDING_API_KEY) problems.push(`Missing setting EMBEDDING_API_KEY: ${url} needs an API key.`);
  }
  if (problems.length) throw new ConfigError(problems.join('\n'));
}
