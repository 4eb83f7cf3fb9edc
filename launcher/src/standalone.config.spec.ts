import { withStandaloneDefaults } from './standalone.config';

describe('withStandaloneDefaults', () => {
  it('writes the index in smaller batches in standalone mode unless the setting is given', () => {
    expect(withStandaloneDefaults({}).INDEX_BATCH_ITEMS).toBe('500');
    expect(withStandaloneDefaults({ INDEX_BATCH_ITEMS: '' }).INDEX_BATCH_ITEMS).toBe('500');
    expect(withStandaloneDefaults({ INDEX_BATCH_ITEMS: '2000', OTHER: 'x' })).toMatchObject({ INDEX_BATCH_ITEMS: '2000', OTHER: 'x' });
  });

  it("does not rebuild the posting blocks' key online in standalone mode, unless told", () => {
    expect(withStandaloneDefaults({}).POSTING_KEY_REBUILD_RATIO).toBe('0');
    expect(withStandaloneDefaults({ POSTING_KEY_REBUILD_RATIO: '3' }).POSTING_KEY_REBUILD_RATIO).toBe('3');
  });
});
