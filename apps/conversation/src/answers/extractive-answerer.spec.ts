import { Test } from '@nestjs/testing';
import fc from 'fast-check';
import { ANSWER_GENERATOR, AnswerGenerator, AnswerRequest, NOT_IN_DATA } from './answer-generator';
import { toSources } from './citations';
import { EXTRACTIVE_OPTIONS, extractAnswer, ExtractiveAnswerer } from './extractive-answerer';
import { answerType } from './sentence-scores';
import { splitSentences } from '@askdata/common';
import { chunkFixture } from '../../../../test/stand-ins/chunks';

const IDOL = chunkFixture(
  0,
  'American Idol is an American singing competition series created by Simon Fuller and produced by 19 Entertainment. ' +
    'It began airing on Fox on June 11, 2002, as an addition to the Idols format. ' +
    'The concept of the series is to find new solo recording artists, with the winner being determined by the viewers in America.',
);
const JUDGES = chunkFixture(
  1,
  "American Idol employs a panel of judges who critique the contestants' performances. " +
    'The original judges were record producer Randy Jackson, pop singer Paula Abdul and music executive Simon Cowell. ' +
    'The show was originally hosted by Ryan Seacrest and Brian Dunkleman.',
);
const OLYMPICS = chunkFixture(
  2,
  'The modern Olympic Games started in Athens in 1896. Dr. Pierre de Coubertin founded the International Olympic Committee in 1894. ' +
    'About 14,000 athletes competed at the 2016 Summer Olympics in Rio de Janeiro.',
);

const ask = (question: string, chunks = [IDOL, JUDGES, OLYMPICS], history: AnswerRequest['history'] = []): AnswerRequest => ({
  question,
  history,
  chunks,
  instructions: null,
});

describe('ExtractiveAnswerer', () => {
  const answerer = new ExtractiveAnswerer();

  it('quotes the sentence that answers and cites its chunk', async () => {
    const answer = await answerer.generate(ask('Who created American Idol?'));
    // The sentence after it goes on about the show ("It began ..."): both are quoted, each with its citation.
    expect(answer.text).toBe(
      'American Idol is an American singing competition series created by Simon Fuller and produced by 19 Entertainment. [1] ' +
        'It began airing on Fox on June 11, 2002, as an addition to the Idols format. [1]',
    );
    expect(answer.citations).toEqual([0]);
    expect(answer.quotes?.[0]).toContain('created by Simon Fuller');
  });

  it('numbers citations from 1 whichever chunk comes first', async () => {
    const answer = await answerer.generate(ask('Who founded the International Olympic Committee?'));
    expect(answer.text).toContain('Dr. Pierre de Coubertin founded the International Olympic Committee in 1894. [1]');
    expect(answer.citations[0]).toBe(2);
    const { sources } = toSources(answer, ask('').chunks);
    expect(sources[0]).toMatchObject({ index: 1, item_id: 'item-2', snippet: expect.stringContaining('Coubertin') });
  });

  it('prefers the sentence that holds the kind of thing asked for', async () => {
    const answer = await answerer.generate(ask('How many athletes competed at the Olympics?'));
    expect(answer.text.startsWith('About 14,000 athletes competed')).toBe(true);
    const when = await answerer.generate(ask('When did American Idol begin airing on Fox?'));
    expect(when.text).toContain('June 11, 2002');
  });

  it('brings the sentence a pronoun leans on', async () => {
    const answer = await answerer.generate(ask('Which format did the show begin airing as an addition to?', [IDOL]));
    expect(answer.text).toContain('It began airing on Fox');
    expect(answer.text).toContain('American Idol is an American singing competition series');
    expect(answer.text.indexOf('American Idol is')).toBeLessThan(answer.text.indexOf('It began'));
  });

  it('cites first the chunk with the best evidence, even when retrieval ranked it lower', async () => {
    // Both chunks mention the founding; only the second says who founded what, and retrieval put it below.
    const overview = chunkFixture(7, 'The committee was founded long ago and has grown since. Many cities host the committee meetings.', { score: 9 });
    const founder = chunkFixture(8, 'Pierre de Coubertin founded the International Olympic Committee in 1894.', { score: 6 });
    const answer = await answerer.generate(ask('Who founded the International Olympic Committee?', [overview, founder]));
    expect(answer.text.startsWith('Pierre de Coubertin founded the International Olympic Committee in 1894. [1]')).toBe(true);
    expect(toSources(answer, [overview, founder]).sources[0]).toMatchObject({ index: 1, item_id: 'item-8' });
  });

  it('lets the retrieval score decide between sentences that answer equally well', async () => {
    const text = 'The lighthouse keeper lit the lamp at dusk.';
    const low = chunkFixture(1, text.replace('lighthouse', 'old lighthouse'), { score: 3 });
    const high = chunkFixture(2, text.replace('lighthouse', 'new lighthouse'), { score: 8 });
    for (const chunks of [
      [low, high],
      [high, low],
    ]) {
      const { sources } = toSources(await answerer.generate(ask('When did the lighthouse keeper light the lamp?', chunks)), chunks);
      expect(sources[0].item_id).toBe('item-2');
    }
  });

  it("prefers the sentence that has the question's words side by side, in its order", async () => {
    // The same words, as close together; only one says "gold medal".
    const apart = chunkFixture(1, 'Smith won the medal for gold in Paris.');
    const phrase = chunkFixture(2, 'Jones won the gold medal in Paris.');
    const answer = await answerer.generate(ask('Who won the gold medal?', [apart, phrase]));
    expect(answer.text.startsWith('Jones won the gold medal in Paris. [1]')).toBe(true);
    expect(answer.citations[0]).toBe(1);
  });

  it('says plainly that the data does not say, citing nothing, when no sentence covers the question', async () => {
    for (const question of ['What is the capital of France?', 'How do I reset my router password?', 'Who won the 2016 Formula One championship?']) {
      expect(await answerer.generate(ask(question))).toEqual({ text: NOT_IN_DATA, citations: [] });
    }
    expect(await answerer.generate(ask('Who created American Idol?', []))).toEqual({ text: NOT_IN_DATA, citations: [] });
    expect(await answerer.generate(ask('???'))).toEqual({ text: NOT_IN_DATA, citations: [] });
  });

  it('uses the earlier questions to understand a follow-up', async () => {
    const history: AnswerRequest['history'] = [
      { role: 'user', text: 'Who created American Idol?' },
      { role: 'assistant', text: 'American Idol was created by Simon Fuller [1].' },
    ];
    const answer = await answerer.generate(ask('and when did it start?', [IDOL, JUDGES, OLYMPICS], history));
    expect(answer.text).toContain('It began airing on Fox on June 11, 2002');
    expect(answer.text).not.toContain('1896');
    expect(await answerer.rewrite('and when did it start?', history)).toBe('and when did it start? (created American Idol)');
    expect(await answerer.rewrite('Who hosted American Idol?', [])).toBe('Who hosted American Idol?');
  });

  it('keeps bracketed numbers and Markdown in the data as text', async () => {
    const chunks = [chunkFixture(0, '- Kelly Clarkson won the first season of American Idol.[3] She was 20.')];
    const answer = await answerer.generate(ask('Who won the first season of American Idol?', chunks));
    expect(answer.text).toBe('\\- Kelly Clarkson won the first season of American Idol.\\[3\\] She was 20. [1]');
    expect(toSources(answer, chunks).sources).toHaveLength(1);
  });

  it('writes at most three sentences', async () => {
    const same = Array.from({ length: 6 }, (_, i) => chunkFixture(i, `Variant ${i} says the lighthouse keeper lit the lamp at dusk.`));
    const answer = await answerer.generate(ask('When did the lighthouse keeper light the lamp?', same));
    expect(answer.citations.length).toBeGreaterThanOrEqual(1);
    expect(answer.citations.length).toBeLessThanOrEqual(3);
  });

  it('never writes words of its own: the answer is sentences of the chunks, or the plain "not in the data"', () => {
    const words = ['river', 'castle', 'king', 'built', 'Paris', 'bridge', 'year', '1850', 'stone', 'the', 'a', 'was', 'in', 'by', 'Dr.', 'U.S.', 'it'];
    const sentence = fc.array(fc.constantFrom(...words), { minLength: 2, maxLength: 12 }).map((w) => `${w.join(' ')}.`);
    const chunkText = fc.array(sentence, { minLength: 1, maxLength: 5 }).map((s) => s.join(' '));
    return fc.assert(
      fc.asyncProperty(fc.array(chunkText, { minLength: 1, maxLength: 4 }), fc.array(fc.constantFrom(...words), { maxLength: 6 }), async (texts, question) => {
        const chunks = texts.map((t, i) => chunkFixture(i, t));
        const answer = await answerer.generate(ask(`${question.join(' ')}?`, chunks));
        if (answer.citations.length === 0) {
          expect(answer.text).toBe(NOT_IN_DATA);
          return;
        }
        const all = new Set(texts.flatMap(splitSentences));
        const pieces = answer.text.split(/ ?(?:\[\d+\])+ ?/).filter(Boolean);
        for (const piece of pieces) for (const s of splitSentences(piece.replace(/\\(.)/g, '$1'))) expect(all).toContain(s);
      }),
      { numRuns: 200 },
    );
  });

  it('is provided through DI under the port token, with options', async () => {
    const moduleRef = await Test.createTestingModule({
      providers: [ExtractiveAnswerer, { provide: ANSWER_GENERATOR, useExisting: ExtractiveAnswerer }, { provide: EXTRACTIVE_OPTIONS, useValue: { minCoverage: 0.99 } }],
    }).compile();
    const generator = moduleRef.get<AnswerGenerator>(ANSWER_GENERATOR);
    expect(generator.kind).toBe('extractive');
    // Half the question's words are not in the data: enough for the defaults, not for this strict setting.
    const question = 'Who created American Idol singing shows in Brazil?';
    expect((await new ExtractiveAnswerer().generate(ask(question))).citations).toEqual([0]);
    expect(await generator.generate(ask(question))).toEqual({ text: NOT_IN_DATA, citations: [] });
  });
});

describe('extractAnswer', () => {
  it('reports how much of the question the best sentence covers', () => {
    expect(extractAnswer('Who created American Idol?', [IDOL]).coverage).toBeCloseTo(1);
    const none = extractAnswer('What is the capital of France?', [IDOL]);
    expect(none).toEqual({ sentences: [], coverage: 0 });
  });

  it('matches related forms the stemmer keeps apart', () => {
    const { sentences } = extractAnswer('Who was the creator of the series?', [IDOL, JUDGES]);
    expect(sentences[0].text).toContain('created by Simon Fuller');
  });
});

describe('answerType', () => {
  it.each([
    ['How many people live there?', 'number'],
    ['What percentage of votes did he get?', 'number'],
    ['When did it start?', 'time'],
    ['In what year was it founded?', 'time'],
    ['Who hosted the show?', 'person'],
    ['Where was he born?', 'place'],
    ['What is the concept of the series?', null],
  ])('%s -> %s', (question, type) => {
    expect(answerType(question)).toBe(type);
  });
});
