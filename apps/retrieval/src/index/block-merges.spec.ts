import { DataSource } from 'typeorm';
import { arrayLiteral } from './batch-preparation';
import { BlockMerges, MERGE_BLOCKS, termsOf } from './block-merges';
import { IndexVacuum } from './index-vacuum';

describe('termsOf', () => {
  it('reads back the terms of an array literal, quotes, backslashes and empty ones included', () => {
    const terms = ['harbour', 'say "hi"', 'back\\slash', '', 'ünïcode', '\\"', '{,}', 'x'];
    expect(termsOf(arrayLiteral(terms))).toEqual(terms);
    expect(termsOf(arrayLiteral([]))).toEqual([]);
  });
});

describe('a merge of the terms written', () => {
  afterEach(() => jest.restoreAllMocks());

  /** The terms each merging transaction was given, over a database whose merges take `ms` each (the clock moved). */
  async function merged(terms: string[], ms: number): Promise<string[][]> {
    const given: string[][] = [];
    let now = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const tx = {
      query: (sql: string, params: unknown[]) => {
        if (sql !== MERGE_BLOCKS) return Promise.resolve([]);
        given.push(params[1] as string[]);
        now += ms;
        return Promise.resolve([{ merged: 0, made: 0, postings: 0 }]);
      },
    };
    const ds = { transaction: (work: (t: typeof tx) => Promise<unknown>) => work(tx) } as unknown as DataSource;
    const merges = new BlockMerges(
      ds,
      { BLOCK_MERGE_QUIET_MS: 3_600_000, BLOCK_MERGE_BATCHES: 1_000_000, BLOCK_MERGE_POSTINGS: 64 },
      new IndexVacuum(ds, { INDEX_VACUUM_ROWS: 0 }),
    );
    merges.written('index', arrayLiteral(terms.slice(0, terms.length / 2)));
    merges.written('index', arrayLiteral(terms.slice(terms.length / 2)));
    await merges.merge('index');
    merges.onApplicationShutdown();
    return given;
  }

  const terms = Array.from({ length: 5000 }, (_, i) => `t${String(i).padStart(5, '0')}`);

  it('gives every term to one transaction, however the transactions grow as they go fast', async () => {
    const given = await merged(terms, 1);
    expect(given.length).toBeGreaterThan(1);
    expect(given.at(-1)!.length).toBeGreaterThan(given[0].length);
    expect(given.flat()).toEqual(terms);
  });

  it('and as they shrink going slow', async () => {
    const given = await merged(terms, 200);
    expect(given.at(-1)!.length).toBeLessThan(given[0].length);
    expect(given.flat()).toEqual(terms);
  });
});
