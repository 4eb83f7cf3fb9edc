import { analyze } from '@askdata/common';
import { matchTerm, terms, tokenize } from './terms';

describe('terms', () => {
  it("are the index's terms for ordinary words: stopwords dropped, possessives folded, Snowball stems", () => {
    const text = "The Running dogs were running quickly to their owners' Zürich café in 2024";
    expect(terms(text)).toEqual(analyze(text));
  });

  it('fold irregular past forms onto their verb', () => {
    expect(terms('began begin wrote written write')).toEqual(['begin', 'begin', 'write', 'write', 'write']);
  });

  it('write small numbers and ordinals as digits', () => {
    expect(terms('the sixth season, season six, the 6th season')).toEqual(['6', 'season', 'season', '6', '6', 'season']);
    expect(matchTerm("Twelve's")).toBe('12');
  });

  it('keep stopwords as tokens without a term', () => {
    expect(tokenize('The cats')).toEqual([
      { word: 'The', term: null },
      { word: 'cats', term: 'cat' },
    ]);
  });
});
