import { GRAM_PREFIX, GRAM_WEIGHT } from '@askdata/common';
import { forwardEntry, IMPACT_SCALE, MAX_ENTRY_TF } from './forward-entries';
import { Metadata, metadataTest } from './filters';
import { MemoryChunk, MemoryPostings, MemorySearch } from './memory-postings';

/** BM25 as the SQL search computes it, exhaustively, over every chunk held (items' metadata by `metadata`): the reference. */
function reference(chunks: MemoryChunk[], q: MemorySearch, metadata = new Map<string, Metadata>()): Array<{ itemId: string; score: number }> {
  const n = chunks.length;
  const avgdl = Math.max(chunks.reduce((s, c) => s + c.length, 0) / n, 1);
  const best = new Map<string, number>();
  const terms = [...new Set(q.terms)];
  const df = new Map(terms.map((t) => [t, chunks.filter((c) => t in c.terms).length]));
  for (const c of chunks) {
    if (q.tenant !== null && c.tenant !== q.tenant) continue;
    if (q.collections && !q.collections.includes(c.collection)) continue;
    if (q.filters && !metadataTest(q.filters)(metadata.get(c.item_id) ?? {})) continue;
    let score = 0;
    let matched = false;
    for (const t of terms) {
      const d = df.get(t)!;
      if (!(t in c.terms) || (t.startsWith(GRAM_PREFIX) && q.gramDepth > 0 && d > q.gramDepth)) continue;
      matched = true;
      const gram = t.startsWith(GRAM_PREFIX);
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5)) * (gram ? GRAM_WEIGHT : 1);
      const entry = c.terms[t];
      const tf = Math.floor(entry / 2 ** 17);
      score += gram ? (idf * (entry % 2 ** 17)) / IMPACT_SCALE : (idf * tf * (q.k1 + 1)) / (tf + q.k1 * (1 - q.b + (q.b * c.length) / avgdl));
    }
    if (matched && score > (best.get(c.item_id) ?? 0)) best.set(c.item_id, score);
  }
  return [...best]
    .map(([itemId, score]) => ({ itemId, score }))
    .sort((a, b) => b.score - a.score || (a.itemId < b.itemId ? -1 : 1))
    .slice(0, q.limit);
}

/** A seeded generator, so that a failure repeats. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const WORDS = ['apple', 'pear', 'plum', 'fig', 'kiwi', 'lime', 'date', 'yuzu', `${GRAM_PREFIX}appl`, `${GRAM_PREFIX}pple`];

function chunkOf(rand: () => number, id: number, item: string): MemoryChunk {
  const terms: Record<string, number> = {};
  for (const w of WORDS) if (rand() < 0.35) terms[w] = forwardEntry(1 + Math.floor(rand() * 5), 1 + Math.floor(rand() * 20000));
  return { id: String(id), item_id: item, collection: rand() < 0.5 ? 'a' : 'b', tenant: rand() < 0.5 ? 1 : null, length: 1 + Math.floor(rand() * 200), terms };
}

const itemId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('MemoryPostings', () => {
  const query = (over: Partial<MemorySearch> = {}): MemorySearch => ({
    terms: ['apple', 'plum', `${GRAM_PREFIX}appl`],
    k1: 0.9,
    b: 0.4,
    gramDepth: 0,
    tenant: null,
    collections: null,
    limit: 10,
    ...over,
  });

  it('scores every item as exhaustive BM25 does, through replacements, removals, compaction and trimming', () => {
    const rand = random(7);
    const memory = new MemoryPostings(64);
    const held = new Map<string, MemoryChunk[]>();
    // Items' metadata: of a few kinds, and a number of their own (distinct metadata, beyond what compaction keeps).
    const metadata = new Map<string, Metadata>();
    const KINDS = ['faq', 'guide', ['faq', 'note'], undefined];
    let id = 1;
    for (let round = 0; round < 40; round++) {
      for (let k = 0; k < 60; k++) {
        const item = itemId(Math.floor(rand() * 300));
        const chunks = rand() < 0.15 ? [] : Array.from({ length: 1 + Math.floor(rand() * 3) }, () => chunkOf(rand, id++, item));
        const meta = { kind: KINDS[Math.floor(rand() * KINDS.length)], n: Math.floor(rand() * 1000) };
        memory.replaceItem(item, chunks, meta);
        metadata.set(item, meta);
        if (chunks.length) held.set(item, chunks);
        else held.delete(item);
      }
      // Trimmed now and then, as after a load: later postings grow the arrays again.
      if (round % 10 === 5) memory.trim();
      const all = [...held.values()].flat();
      expect(memory.chunks).toBe(all.length);
      const filtered = [
        query({ filters: [{ field: 'kind', conditions: [{ op: 'eq', value: 'faq' }] }] }),
        query({ tenant: 1, filters: [{ field: 'n', conditions: [{ op: 'lt', value: 500 }] }] }),
        query({ filters: [{ field: 'kind', conditions: [{ op: 'ne', value: 'guide' }] }] }),
      ];
      for (const q of [query(), query({ tenant: 1 }), query({ collections: ['b'] }), query({ gramDepth: 40, limit: 3 }), query({ terms: ['yuzu', 'yuzu'] }), ...filtered]) {
        const got = memory.search(q).map((h) => ({ itemId: h.itemId, score: h.score }));
        const want = reference(all, q, metadata);
        expect(got.map((h) => h.itemId)).toEqual(want.map((h) => h.itemId));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
      }
    }
  });

  it('finds what exhaustive BM25 finds when common terms are only counted for the chunks that can still make the page', () => {
    // Words of very different frequencies (Zipf-like), so that a question's common words cannot lift a chunk that
    // lacks its rare ones: the common words' postings are then looked up for the chunks found only.
    const rand = random(3);
    // Every seventh a run of characters, whose impacts were written with a larger k1 than the search's.
    const vocabulary = Array.from({ length: 300 }, (_, i) => (i % 7 === 3 ? `${GRAM_PREFIX}w${i}` : `w${i}`));
    const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(1 / (rand() + 1e-3)))];
    const memory = new MemoryPostings();
    const all: MemoryChunk[] = [];
    for (let i = 0; i < 3000; i++) {
      const terms: Record<string, number> = {};
      for (let k = 0; k < 12; k++) terms[word()] = forwardEntry(1 + Math.floor(rand() * 4), 1 + Math.floor(rand() * 60000));
      const chunk = { id: String(i), item_id: itemId(i % 2000), collection: 'a', tenant: null, length: 10 + Math.floor(rand() * 90), terms };
      all.push(chunk);
    }
    const byItem = new Map<string, MemoryChunk[]>();
    for (const c of all) byItem.set(c.item_id, [...(byItem.get(c.item_id) ?? []), c]);
    for (const [item, chunks] of byItem) memory.replaceItem(item, chunks);
    for (let k = 0; k < 200; k++) {
      const q = query({ terms: Array.from({ length: 2 + Math.floor(rand() * 8) }, word), limit: 1 + Math.floor(rand() * 10) });
      const got = memory.search(q);
      const want = reference(all, q);
      expect(got.map((h) => h.itemId)).toEqual(want.map((h) => h.itemId));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
    }
  });

  it('judges which chunks can still make the page by items, not chunks, when an item has many good chunks', () => {
    // One item's ten chunks all hold the rare word often; a few other items hold it once. The page's last item is one
    // of those: chunks that can still reach it are counted on, not only those that can reach the first item's.
    const memory = new MemoryPostings();
    const all: MemoryChunk[] = [];
    const add = (item: number, chunks: Array<Record<string, number>>) => {
      const made = chunks.map((terms) => ({ id: String(all.length + 1), item_id: itemId(item), collection: 'a', tenant: null, length: 50, terms }));
      all.push(...made);
      memory.replaceItem(itemId(item), made);
    };
    add(
      0,
      Array.from({ length: 10 }, () => ({ rare: forwardEntry(6, 1), common: forwardEntry(1, 1) })),
    );
    for (let i = 1; i <= 4; i++) add(i, [{ rare: forwardEntry(1, 1), common: forwardEntry(i, 1) }]);
    for (let i = 5; i < 400; i++) add(i, [{ common: forwardEntry(1 + (i % 3), 1) }]);
    for (const limit of [2, 3, 5]) {
      const q = query({ terms: ['rare', 'common'], limit });
      expect(memory.search(q).map((h) => h.itemId)).toEqual(reference(all, q).map((h) => h.itemId));
    }
  });

  it('scores term frequencies beyond a byte exactly, up to the largest an entry holds, through compaction and trimming', () => {
    // A word's frequencies are held in a byte until one does not fit; its postings before and after must keep theirs.
    const memory = new MemoryPostings(2);
    const tfs = [1, 3, 255, 1, 256, 2, 1000, 7, MAX_ENTRY_TF, 254, 300, 1];
    const all = tfs.map((tf, i): MemoryChunk => ({
      id: String(i + 1),
      item_id: itemId(i),
      collection: 'a',
      tenant: null,
      length: 40 + i,
      terms: { word: forwardEntry(tf, 1), other: forwardEntry(1, 1) },
    }));
    for (const c of all) memory.replaceItem(c.item_id, [c]);
    const check = (chunks: MemoryChunk[]) => {
      const q = query({ terms: ['word'], limit: 20 });
      const got = memory.search(q);
      const want = reference(chunks, q);
      expect(got.map((h) => h.itemId)).toEqual(want.map((h) => h.itemId));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
      // The most frequent first: their frequencies were not cut to a byte.
      expect(got[0].itemId).toBe(itemId(tfs.indexOf(MAX_ENTRY_TF)));
    };
    check(all);
    // More removed than are left, so that the dead slots are compacted away; then trimmed as after a load.
    const removed = new Set([0, 1, 3, 5, 7, 9, 11].map(itemId));
    for (const id of removed) memory.replaceItem(id, []);
    // (A write that adds chunks is what compacts.)
    memory.replaceItem(itemId(8), [all[8]]);
    expect(memory.stats().postings).toBe(2 * (tfs.length - removed.size));
    memory.trim();
    check(all.filter((c) => !removed.has(c.item_id)));
  });

  it("gives back each hit's chunk number as it was given, one a number cannot hold exactly too, through compaction", () => {
    const memory = new MemoryPostings(2);
    const ids = ['42', '9007199254740993', '4611686018427387904', '0042', 'x-1', '9007199254740991'];
    ids.forEach((id, i) => memory.replaceItem(itemId(i), [{ id, item_id: itemId(i), collection: 'a', tenant: null, length: 5 + i, terms: { apple: forwardEntry(1, 1) } }]));
    const found = () => new Map(memory.search(query({ terms: ['apple'], limit: 10 })).map((h) => [h.itemId, h.id]));
    expect(found()).toEqual(new Map(ids.map((id, i) => [itemId(i), id])));
    // Three removed and one written again: compacted, the rest renumbered.
    for (const i of [0, 2, 4]) memory.replaceItem(itemId(i), []);
    memory.replaceItem(itemId(5), [{ id: '7', item_id: itemId(5), collection: 'a', tenant: null, length: 5, terms: { apple: forwardEntry(1, 1) } }]);
    expect(found()).toEqual(
      new Map([
        [itemId(1), '9007199254740993'],
        [itemId(3), '0042'],
        [itemId(5), '7'],
      ]),
    );
  });

  it('gives one hit per item, its best chunk, and orders equal scores by item id', () => {
    const memory = new MemoryPostings();
    const terms = { apple: forwardEntry(2, 1) };
    memory.replaceItem(itemId(2), [
      { id: '20', item_id: itemId(2), collection: 'a', tenant: null, length: 50, terms },
      { id: '21', item_id: itemId(2), collection: 'a', tenant: null, length: 5, terms },
    ]);
    memory.replaceItem(itemId(1), [{ id: '10', item_id: itemId(1), collection: 'a', tenant: null, length: 5, terms }]);
    memory.replaceItem(itemId(3), [{ id: '30', item_id: itemId(3), collection: 'a', tenant: null, length: 5, terms: { pear: forwardEntry(1, 1) } }]);
    const hits = memory.search(query({ terms: ['apple'] }));
    expect(hits.map((h) => [h.itemId, h.id])).toEqual([
      [itemId(1), '10'],
      [itemId(2), '21'],
    ]);
    expect(hits[0].score).toBe(hits[1].score);
  });

  it("filters on the metadata the database holds: JSON's, where a number it cannot write is null", () => {
    const memory = new MemoryPostings();
    const terms = { apple: forwardEntry(1, 1) };
    memory.replaceItem(itemId(1), [{ id: '1', item_id: itemId(1), collection: 'a', tenant: null, length: 5, terms }], { size: Infinity, kind: 'x' });
    memory.replaceItem(itemId(2), [{ id: '2', item_id: itemId(2), collection: 'a', tenant: null, length: 5, terms }], { size: 9, kind: undefined });
    const found = (filters: MemorySearch['filters']) => memory.search(query({ terms: ['apple'], filters })).map((h) => h.itemId);
    expect(found([{ field: 'size', conditions: [{ op: 'gt', value: 5 }] }])).toEqual([itemId(2)]);
    expect(found([{ field: 'size', conditions: [{ op: 'ne', value: 9 }] }])).toEqual([itemId(1)]);
    expect(found([{ field: 'kind', conditions: [{ op: 'ne', value: 'x' }] }])).toEqual([itemId(2)]);
    // Metadata that is not an object (never written so) has no fields.
    memory.replaceItem(itemId(2), [{ id: '3', item_id: itemId(2), collection: 'a', tenant: null, length: 5, terms }], null as unknown as Metadata);
    expect(found([{ field: 'kind', conditions: [{ op: 'ne', value: 'x' }] }])).toEqual([itemId(2)]);
    expect(found([{ field: 'size', conditions: [{ op: 'gt', value: 5 }] }])).toEqual([]);
  });

  it('finds nothing for unknown terms, a removed item or an empty index', () => {
    const memory = new MemoryPostings();
    expect(memory.search(query())).toEqual([]);
    memory.replaceItem(itemId(1), [{ id: '1', item_id: itemId(1), collection: 'a', tenant: null, length: 5, terms: { apple: forwardEntry(1, 1) } }]);
    expect(memory.search(query({ terms: ['nothing'] }))).toEqual([]);
    memory.replaceItem(itemId(1), []);
    expect(memory.search(query())).toEqual([]);
    expect(memory.chunks).toBe(0);
  });
});
