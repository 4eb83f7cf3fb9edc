import { withStandaloneDefaults } from './standalone.config';

describe('withStandaloneDefaults', () => {
  it('writes the index in smaller batches in standalone mode unless the setting is given', () => {
    expect(withStandaloneDefaults({}).INDEX_BATCH_ITEMS).toBe('500');
    expect(withStandaloneDefaults({ INDEX_BATCH_ITEMS: '' }).INDEX_BATCH_ITEMS).toBe('500');
    expect(withStandaloneDefaults({ INDEX_BATCH_ITEMS: '2000', OTHER: 'x' })).toEqual({ INDEX_BATCH_ITEMS: '2000', OTHER: 'x' });
  });
});
