import { Env, setting } from '@askdata/common';

export const standaloneSettings = {
  DATA_DIR: setting.requiredString('Standalone mode: where the embedded database and the admin token are kept.', {
    default: './data',
  }),
};

/**
 * Defaults that differ in standalone mode. The embedded database has one session, so a read waits for the write
 * transaction in progress: index batches are kept smaller there (a quarter of the distributed default, which in
 * the ingestion benchmark writes as fast), and the posting blocks' key is not rebuilt online (the rebuild would hold the
 * session as long as a rewrite of the table with its key, which gives back more: POSTING_BLOCKS_REWRITE_RATIO).
 */
const STANDALONE_DEFAULTS: Env = { INDEX_BATCH_ITEMS: '500', POSTING_KEY_REBUILD_RATIO: '0' };

/** The environment with standalone mode's defaults for the settings it leaves unset. */
export function withStandaloneDefaults(env: Env): Env {
  const out: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(STANDALONE_DEFAULTS)) if (!out[name]) out[name] = value;
  return out;
}
