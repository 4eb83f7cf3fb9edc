import { arrayLiteral } from './batch-preparation';
import { termsOf } from './block-merges';

describe('termsOf', () => {
  it('reads back the terms of an array literal, quotes, backslashes and empty ones included', () => {
    const terms = ['harbour', 'say "hi"', 'back\\slash', '', 'ünïcode', '\\"', '{,}', 'x'];
    expect(termsOf(arrayLiteral(terms))).toEqual(terms);
    expect(termsOf(arrayLiteral([]))).toEqual([]);
  });
});
