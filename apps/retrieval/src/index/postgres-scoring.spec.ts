import { forwardEntry, packForward } from './forward-entries';
import { bestOf, Candidate } from './postgres-index';

/** A candidate of the SQL search, its forward index packed (or, `old`, as jsonb rows written before hold it). */
function candidate(id: string, item: string, length: number, tfs: Record<string, number>, over: Partial<Candidate> = {}, old = false): Candidate {
  const names = Object.keys(tfs);
  const entries = names.map((t) => forwardEntry(tfs[t], 5000));
  return {
    id,
    item_id: item,
    length,
    forward: old ? null : packForward(names, entries),
    terms: old ? Object.fromEntries(names.map((t, k) => [t, entries[k]])) : null,
    grams: 0,
    avgdl: 10,
    idfs: { cedar: 2, grove: 1 },
    ...over,
  };
}

const bm25 = (idf: number, tf: number, length: number, k1 = 1.2, b = 0.75, avgdl = 10) => (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgdl));

describe('candidates scored from their forward index', () => {
  it("scores each with exact BM25 over the question's words it holds, plus its character runs' score", () => {
    const [hit] = bestOf([candidate('1', 'a', 12, { cedar: 3, grove: 1, oak: 4 }, { grams: 0.25 })], 1.2, 0.75, 10);
    expect(hit.score).toBeCloseTo(bm25(2, 3, 12) + bm25(1, 1, 12) + 0.25, 12);
  });

  it('scores rows written before (jsonb) as packed ones', () => {
    const tfs = { cedar: 2, grove: 5 };
    expect(bestOf([candidate('1', 'a', 7, tfs, {}, true)], 1.2, 0.75, 10)).toEqual(bestOf([candidate('1', 'a', 7, tfs)], 1.2, 0.75, 10));
  });

  it('keeps the best chunk of each item, the lowest number among equals, best items first, then by item, up to the limit', () => {
    const hits = bestOf(
      [
        candidate('20', 'b', 10, { cedar: 1 }),
        candidate('7', 'a', 10, { grove: 1 }),
        candidate('9', 'a', 10, { cedar: 1, grove: 1 }),
        candidate('300000000000000002', 'c', 10, { cedar: 1 }),
        candidate('300000000000000001', 'c', 10, { cedar: 1 }),
        candidate('4', 'd', 10, { oak: 1 }),
      ],
      1.2,
      0.75,
      3,
    );
    expect(hits.map((h) => [h.itemId, h.id])).toEqual([
      ['a', '9'],
      ['b', '20'],
      ['c', '300000000000000001'],
    ]);
  });

  it('finds nothing among no candidates, and does not take a word for an inherited property', () => {
    expect(bestOf([], 1.2, 0.75, 10)).toEqual([]);
    const [hit] = bestOf([candidate('1', 'a', 10, { constructor: 2, cedar: 1 })], 1.2, 0.75, 10);
    expect(hit.score).toBeCloseTo(bm25(2, 1, 10), 12);
  });
});
