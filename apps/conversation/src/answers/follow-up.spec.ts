import { ChatTurn } from './answer-generator';
import { carriedWords, needsContext, standaloneQuestion } from './follow-up';

const turns = (...texts: string[]): ChatTurn[] => texts.map((text, i) => ({ role: i % 2 ? 'assistant' : 'user', text }));

describe('needsContext', () => {
  it.each([
    ['what about the second one?', true],
    ['and when did it start?', true],
    ['Who hosted it?', true],
    ['Why?', true],
    ['Who created the American Idol television series?', false],
    ['When did the Mongol Empire reach its greatest extent?', false],
    ['What did the band release after their breakup?', true],
    ['Did Beyoncé win it?', true],
  ])('%s -> %s', (question, expected) => {
    expect(needsContext(question)).toBe(expected);
  });
});

describe('standaloneQuestion', () => {
  it("carries the previous question's informative words into a short or referring follow-up", () => {
    const history = turns('Which seasons of American Idol were hosted by Ryan Seacrest?', 'Seasons 2 to 15 [1].');
    expect(standaloneQuestion('what about the second one?', history)).toBe('what about the second one? (seasons American Idol hosted Ryan Seacrest)');
    expect(standaloneQuestion('and when did it start?', history)).toBe('and when did it start? (seasons American Idol hosted Ryan Seacrest)');
  });

  it('leaves a question that stands on its own, and a first question, as asked', () => {
    const history = turns('Who created American Idol?', 'Simon Fuller [1].');
    expect(standaloneQuestion('Which network broadcast the Eurovision Song Contest final?', history)).toBe('Which network broadcast the Eurovision Song Contest final?');
    expect(standaloneQuestion('and when did it start?', [])).toBe('and when did it start?');
  });

  it('does not repeat words the follow-up already has', () => {
    const history = turns('When did American Idol start?', '2002 [1].');
    expect(carriedWords('Who won American Idol in 2004?', history)).toEqual([]);
    expect(carriedWords('who won it?', history)).toEqual(['American', 'Idol', 'start']);
  });

  it('reaches back through a chain of follow-ups to the question that set the topic', () => {
    const history = turns('Who created American Idol?', 'Simon Fuller [1].', 'and when did it start?', 'In 2002 [1].');
    expect(standaloneQuestion('who hosted it?', history)).toBe('who hosted it? (start created American Idol)');
  });

  it('ignores what the assistant said', () => {
    expect(carriedWords('and then?', turns('Who founded Rome?', 'Romulus, says the legend [1].'))).toEqual(['founded', 'Rome']);
  });
});
