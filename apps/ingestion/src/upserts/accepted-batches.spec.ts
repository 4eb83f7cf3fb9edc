import { AcceptedBatches, KEPT_ITEMS } from './accepted-batches';
import { UpsertBatchPayload } from './upsert.entity';

const batch = (items: number): UpsertBatchPayload => ({
  tenancy: 'single',
  collection: null,
  items: Array.from({ length: items }, (_, i) => ({ id: `doc-${i}`, data: { text: `item ${i}` }, metadata: {}, tenant: null, url: null })),
});

describe('AcceptedBatches', () => {
  it('gives a kept batch out once', () => {
    const kept = new AcceptedBatches();
    const b = batch(3);
    kept.keep('u1', b);
    expect(kept.ids()).toEqual(['u1']);
    expect(kept.take('u1')).toBe(b);
    expect(kept.take('u1')).toBeUndefined();
    expect(kept.ids()).toEqual([]);
  });

  it(`keeps at most ${KEPT_ITEMS} items, dropping the oldest batches first`, () => {
    const kept = new AcceptedBatches();
    const half = KEPT_ITEMS / 2;
    kept.keep('a', batch(half));
    kept.keep('b', batch(half));
    expect(kept.ids()).toEqual(['a', 'b']);
    kept.keep('c', batch(1));
    expect(kept.ids()).toEqual(['b', 'c']);
    // Taking one makes room again.
    expect(kept.take('b')?.items).toHaveLength(half);
    kept.keep('d', batch(half));
    expect(kept.ids()).toEqual(['c', 'd']);
  });

  it('does not keep a batch larger than it may hold', () => {
    const kept = new AcceptedBatches();
    kept.keep('small', batch(1));
    kept.keep('huge', batch(KEPT_ITEMS + 1));
    expect(kept.ids()).toEqual(['small']);
  });
});
