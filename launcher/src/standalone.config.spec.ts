import { withStandaloneDefaults } from './standalone.config';

describe('withStandaloneDefaults', () => {
  it('writes the index in smaller batches in standalone mode unless the setting is given', () => {
    expect(withStandaloneDefaults({}).INDEX_BATCH_ITEMS).toBe('500');
    expect(withStandaloneDefaults({ INDEX_BATCH_ITEMS: '' }).INDEX_BATCH_ITEMS).toBe('500');
    expect(withStandaloneDefaults({ INDEX_BATCH_ITEMS: '2000', OTHER: 'x' })).toMatchObject({ INDEX_BATCH_ITEMS: '2000', OTHER: 'x' });
  });

  it('rewrites the posting blocks with their key in standalone mode instead of rebuilding the key online, unless told', () => {
    expect(withStandaloneDefaults({})).toMatchObject({ POSTING_KEY_REBUILD_RATIO: '0', POSTING_BLOCKS_REWRITE_RATIO: '3' });
    expect(withStandaloneDefaults({ POSTING_KEY_REBUILD_RATIO: '3', POSTING_BLOCKS_REWRITE_RATIO: '0' })).toMatchObject({
      POSTING_KEY_REBUILD_RATIO: '3',
      POSTING_BLOCKS_REWRITE_RATIO: '0',
    });
  });
});
