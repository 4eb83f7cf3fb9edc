import { AcceptedBatches, KEPT_ITEMS } from './accepted-batches';
import { UpsertBatchPayload } from './upsert.entity';

const batch = (items: number): UpsertBatchPayload => ({
  tenancy: 'single',
  collection: null,
  items: Array.from({ length: items }, (_, i) => ({ id: `doc-${i}`, data: { text: `item ${i}` }, metadata: {}, tenant: null, url: null })),
});

/** Which of these upserts have their batches kept. */
const keptOf = (kept: AcceptedBatches, ids: string[]) => ids.filter((id) => kept.get(id) !== undefined);

describe('AcceptedBatches', () => {
  it('keeps a batch until it is dropped', () => {
    const kept = new AcceptedBatches();
    const b = batch(3);
    kept.keep('u1', b);
    expect(kept.get('u1')).toBe(b);
    expect(kept.get('u1')).toBe(b);
    kept.drop('u1');
    expect(kept.get('u1')).toBeUndefined();
    kept.drop('u1');
    expect(kept.get('u1')).toBeUndefined();
  });

  it(`keeps at most ${KEPT_ITEMS} items, dropping the oldest batches first`, () => {
    const kept = new AcceptedBatches();
    const half = KEPT_ITEMS / 2;
    kept.keep('a', batch(half));
    kept.keep('b', batch(half));
    expect(keptOf(kept, ['a', 'b'])).toEqual(['a', 'b']);
    kept.keep('c', batch(1));
    expect(keptOf(kept, ['a', 'b', 'c'])).toEqual(['b', 'c']);
    // Dropping one makes room again.
    kept.drop('b');
    kept.keep('d', batch(half));
    expect(keptOf(kept, ['a', 'b', 'c', 'd'])).toEqual(['c', 'd']);
  });

  it('does not keep a batch larger than it may hold', () => {
    const kept = new AcceptedBatches();
    kept.keep('small', batch(1));
    kept.keep('huge', batch(KEPT_ITEMS + 1));
    expect(keptOf(kept, ['small', 'huge'])).toEqual(['small']);
  });
});
