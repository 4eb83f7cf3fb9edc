import { randomUUID } from 'node:crypto';
import { sqlIndex } from '../../../../test/integration/support/retrieval-index';
import { embeddedDatabaseForTests } from '../../../../test/support/embedded-database';
import { retrievalDatabase } from '../retrieval.database';
import { PostingKeyRebuild, TABLE_SIZE } from './posting-key-rebuild';

/**
 * Standalone mode's embedded database: once merges have emptied most of the posting blocks' table and key, the table is
 * rewritten with its key in a pause, giving the room back, and searches find what they found before.
 */
describe('posting blocks rewritten in the embedded database', () => {
  const database = embeddedDatabaseForTests(retrievalDatabase);

  it('gives back the room merges left in the table and its key, once writes pause', async () => {
    const ds = database();
    const { index, merges } = sqlIndex(ds);
    const scope = { projectId: randomUUID(), tenancy: 'single' as const };
    let seed = 7;
    const words: string[] = [];
    const word = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      words.push(`w${Math.floor((seed / 2 ** 31) * 4000)}`);
      return words[words.length - 1];
    };
    // Mostly rare words: nearly every block a batch writes holds a posting or two, and merging removes most rows.
    for (let b = 0; b < 25; b++)
      await index.replace(
        scope,
        Array.from({ length: 20 }, (_, i) => ({
          itemId: randomUUID(),
          clientItemId: `item-${b * 20 + i}`,
          collection: 'default',
          tenant: null,
          url: null,
          metadata: {},
          title: '',
          chunks: [`${Array.from({ length: 40 }, word).join(' ')} harbour`],
        })),
      );
    await merges.merge(scope.projectId);
    await ds.query('VACUUM (ANALYZE) retrieval.posting_blocks');
    const sizes = async () =>
      (
        await ds.query<Array<{ heap: number; key: number }>>(
          `SELECT pg_relation_size('retrieval.posting_blocks')::int AS heap, pg_relation_size('retrieval."PK_posting_blocks"')::int AS key`,
        )
      )[0];
    const search = (text: string) => index.search({ scope, text, tenant: null, collections: null, filters: [], limit: 10 });
    const found = async () => (await Promise.all([`harbour ${words[0]}`, words.slice(100, 103).join(' ')].map(search))).map((hits) => hits.map((h) => [h.item_id, h.score]));
    const [before, merged] = [await found(), await sizes()];
    expect(before.every((hits) => hits.length > 0)).toBe(true);

    // Standalone's settings: no online rebuild of the key, a rewrite of both at 3 times the room needed.
    const settings = { POSTING_KEY_REBUILD_RATIO: 0, POSTING_BLOCKS_REWRITE_RATIO: 3 };
    // Its live rows beyond POSTING_BLOCKS_REWRITE_MAX_MB: left as it is; within it, rewritten.
    const [{ needed }] = await ds.query<Array<{ needed: number }>>(TABLE_SIZE);
    const live = needed / 2 ** 20;
    expect(await new PostingKeyRebuild(ds, { ...settings, POSTING_BLOCKS_REWRITE_MAX_MB: live / 2 }, 0).run({ paused: true })).toBe('not_needed');
    expect(await sizes()).toEqual(merged);
    const rewrite = new PostingKeyRebuild(ds, { ...settings, POSTING_BLOCKS_REWRITE_MAX_MB: live * 2 }, 0);
    expect(await rewrite.run({ paused: false })).toBe('not_needed');
    expect(await rewrite.run({ paused: true })).toBe('rewritten');
    const after = await sizes();
    expect(after.heap).toBeLessThan(merged.heap / 2);
    expect(after.key).toBeLessThan(merged.key / 2);
    expect(await found()).toEqual(before);
    expect(await rewrite.run({ paused: true })).toBe('not_needed');
    merges.onApplicationShutdown();
  });
});
