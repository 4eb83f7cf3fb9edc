import { GRAM_WEIGHT, termFrequencies } from '@askdata/common';
import { documentVector, queryVector, termIndex } from './sparse-vectors';

describe('sparse vectors', () => {
  const p = { k1: 0.9, b: 0.4, avgLength: 10 };

  it("gives a word BM25's term-frequency part and a run of its characters that part times GRAM_WEIGHT, length counting words", () => {
    const vector = documentVector('Книгами книгами библиотека', p, 'ru');
    const value = (term: string) => vector.values[vector.indices.indexOf(termIndex(term))];
    // Three words: "книг" twice, "библиотек" once.
    const norm = p.k1 * (1 - p.b + (p.b * 3) / p.avgLength);
    expect(value('книг')).toBeCloseTo((2 * (p.k1 + 1)) / (2 + norm), 10);
    expect(value('библиотек')).toBeCloseTo((1 * (p.k1 + 1)) / (1 + norm), 10);
    expect(value('#книг')).toBeCloseTo((GRAM_WEIGHT * 2 * (p.k1 + 1)) / (2 + norm), 10);
    expect(vector.indices).toHaveLength(termFrequencies('Книгами книгами библиотека', 'ru').size);
  });

  it('leaves English as it was: words only', () => {
    const vector = documentVector('Books and more books', p, 'en');
    expect(vector.indices.sort()).toEqual([termIndex('book')].sort());
    expect(queryVector(['book', 'book'])).toEqual({ indices: [termIndex('book')], values: [1] });
  });
});
