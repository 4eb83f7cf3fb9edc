import { ChunkInput } from '@askdata/contracts';
import { ENVELOPE_BYTES, indexBatches } from './upsert-processor';

const doc = (i: number, text: string): ChunkInput => ({
  itemId: `0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
  clientItemId: `item-${i}`,
  collection: 'default',
  tenant: null,
  url: null,
  metadata: {},
  title: `Item ${i}`,
  chunks: [text],
});
const bytesOf = (batch: ChunkInput[]) => batch.reduce((n, d) => n + Buffer.byteLength(JSON.stringify(d)) + 1, 0);

describe('indexBatches', () => {
  const docs = Array.from({ length: 45 }, (_, i) => doc(i, `Gravel shipped by barge, weighed at the dock ${i}. `.repeat(30)));

  it('cuts by items alone in process, and keeps every item once, in order', () => {
    const batches = indexBatches(docs, 20, null);
    expect(batches.map((b) => b.length)).toEqual([20, 20, 5]);
    expect(batches.flat()).toEqual(docs);
  });

  it('over NATS, cuts by bytes as well, whatever the server carries: each request within the bytes given', () => {
    const cap = ENVELOPE_BYTES + 10 * bytesOf([docs[0]]);
    const batches = indexBatches(docs, 20, cap);
    expect(batches.flat()).toEqual(docs);
    expect(batches.length).toBe(5);
    batches.forEach((b, k) => {
      expect(bytesOf(b)).toBeLessThanOrEqual(cap - ENVELOPE_BYTES);
      // Full: the next item would not have fitted.
      if (k + 1 < batches.length) expect(bytesOf([...b, batches[k + 1][0]])).toBeGreaterThan(cap - ENVELOPE_BYTES);
    });
    // With room for more than the item count, items decide.
    expect(indexBatches(docs, 20, 64 * 1024 * 1024).map((b) => b.length)).toEqual([20, 20, 5]);
  });

  it('sends an item larger than the bytes given alone, rather than not at all', () => {
    const big = doc(99, 'x'.repeat(200_000));
    const batches = indexBatches([docs[0], big, docs[1]], 20, ENVELOPE_BYTES + 100_000);
    expect(batches.map((b) => b.map((d) => d.clientItemId))).toEqual([['item-0'], ['item-99'], ['item-1']]);
  });
});
