import { serviceSettings, ConfigOf, setting } from '@askdata/common';

export const ingestionSettings = {
  ...serviceSettings,
  UPSERT_LEASE_MS: setting.int(
    "How long a claimed upsert stays a worker's without news of it: the worker renews it every third of this while it works, so this bounds how long a dead worker's upserts wait.",
    { default: 6000, min: 1000, max: 3600000 },
  ),
  UPSERT_MAX_ATTEMPTS: setting.int('Attempts before an upsert is marked failed (attempts that found a service unavailable count only once UPSERT_OUTAGE_RETRY_MS ran out).', {
    default: 5,
    min: 1,
    max: 100,
  }),
  UPSERT_RETRY_BACKOFF_MS: setting.int('Delay before retrying a failed attempt (times the attempts counted; after an unavailable service, doubled at each attempt).', {
    default: 2000,
    min: 0,
    max: 3600000,
  }),
  UPSERT_OUTAGE_RETRY_MS: setting.int(
    'How long an upsert whose attempts find a service unavailable (bus, service or its database down) is retried, from the first such attempt, before they count against UPSERT_MAX_ATTEMPTS.',
    { default: 6 * 3600000, min: 0, max: 7 * 24 * 3600000 },
  ),
  UPSERT_OUTAGE_BACKOFF_MAX_MS: setting.int('Longest delay between the attempts of an upsert while a service is unavailable.', {
    default: 60000,
    min: 0,
    max: 3600000,
  }),
  INGEST_CONCURRENCY: setting.int('Upserts processed at once by one ingestion process.', { default: 2, min: 1, max: 64 }),
  INGEST_POLL_MS: setting.int('How often idle workers look for work the doorbell did not announce.', {
    default: 1000,
    min: 50,
    max: 60000,
  }),
  INGEST_ANALYSIS_THREAD: setting.bool(
    "Read items' text (normalising, language detection) and chunk it on a thread of its own, so that the process's event loop (the bus and, in standalone mode, every other service's requests) is not held up meanwhile; otherwise on the event loop, in slices.",
    { default: true },
  ),
  INGEST_ANALYSIS_TIMEOUT_MS: setting.int(
    'How long the analysis thread may owe answers without giving any before it is taken to be stuck: it is stopped and started again, and the attempts it held fail (and are retried as attempts).',
    { default: 60000, min: 1000, max: 3600000 },
  ),
  CHUNK_MAX_TOKENS: setting.int('Chunk size in tokens.', { default: 200, min: 16, max: 8192 }),
  CHUNK_OVERLAP_TOKENS: setting.int('Tokens shared by consecutive chunks.', { default: 40, min: 0, max: 4096 }),
  INGEST_GROUP_ITEMS: setting.int("Items of a project's consecutive waiting upserts processed together as one, for fewer and larger index batches.", {
    default: 2000,
    min: 1,
    max: 20000,
  }),
  INDEX_BATCH_ITEMS: setting.int(
    'Items per request to the retrieval service, each written to the index in one transaction (fewer when INDEX_BATCH_BYTES is reached first). Standalone mode, unset: 500, so that a read waits less for the write in progress.',
    {
      default: 2000,
      min: 1,
      max: 20000,
    },
  ),
  INDEX_BATCH_BYTES: setting.int(
    "Distributed: bytes of JSON per request to the retrieval service at most (an item larger goes alone); 0: the NATS server's max_payload. Larger requests travel through the bus's object store and write fewer, fuller posting blocks (less disk, less database work an item), at the cost of longer pauses in retrieval's event loop, so searches' p99 while a load runs is higher (docs/deploy.md).",
    { default: 0, min: 0, max: 64 * 1024 * 1024 },
  ),
  INDEX_CONCURRENCY: setting.int('Requests to the retrieval service one attempt has in flight at once.', { default: 2, min: 1, max: 16 }),
};
export type IngestionConfig = ConfigOf<typeof ingestionSettings>;
