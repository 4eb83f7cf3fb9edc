import { analyze, queryTerms, termFrequencies } from './analyzer';
import { splitSentences } from './sentences';

describe('analyze', () => {
  it('lowercases, drops stopwords and stems with Snowball English', () => {
    expect(analyze('The Running dogs were running quickly to their owners!')).toEqual(['run', 'dog', 'run', 'quick', 'owner']);
  });

  it('keeps numbers and unicode letters, and folds possessives', () => {
    expect(analyze("Zürich's 2024 café")).toEqual(['zürich', '2024', 'café']);
  });

  it('counts each query term once and term frequencies per text', () => {
    expect(queryTerms('cats and cats and more cats')).toEqual(['cat']);
    expect(termFrequencies('cat cats dog')).toEqual(
      new Map([
        ['cat', 2],
        ['dog', 1],
      ]),
    );
  });
});

describe('splitSentences', () => {
  it('splits at sentence ends but not after abbreviations, initials or inside numbers', () => {
    expect(splitSentences('Dr. Smith moved to the U.S. in 1990. He paid $3.50 for it. J. R. R. Tolkien wrote books! Did he? Yes.')).toEqual([
      'Dr. Smith moved to the U.S. in 1990.',
      'He paid $3.50 for it.',
      'J. R. R. Tolkien wrote books!',
      'Did he?',
      'Yes.',
    ]);
  });

  it('ends a sentence at a line break, so a title stays apart from the text', () => {
    expect(splitSentences('Opening hours\nWe are open 9am to 5pm. Closed on Sundays.')).toEqual(['Opening hours', 'We are open 9am to 5pm.', 'Closed on Sundays.']);
  });

  it('handles quotes and a missing final stop', () => {
    expect(splitSentences('He said "go." Then he left and never came back')).toEqual(['He said "go."', 'Then he left and never came back']);
  });
});
