import { ChatTurn } from './answer-generator';
import { boundAnswer, CUT_OFF_NOTE, estimateTokens, HISTORY_STEP, historyWithin } from './bounds';
import { toSources } from './citations';
import { chunkFixture } from '../../../../test/stand-ins/chunks';

describe('boundAnswer', () => {
  it('leaves an answer within the limit as it is', () => {
    const answer = { text: 'We open at 9am. [1]', citations: [0] };
    expect(boundAnswer(answer, 100)).toBe(answer);
  });

  it('cuts a long answer at a break before the limit, says so, and keeps only the sources still cited', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `Line ${i} of the answer [${(i % 2) + 1}].`);
    const bounded = boundAnswer({ text: lines.join('\n'), citations: [0, 1] }, 2000);
    expect(bounded.text.length).toBeLessThanOrEqual(2000);
    expect(bounded.finish).toBe('truncated');
    expect(bounded.text.endsWith(`.\n\n${CUT_OFF_NOTE}`)).toBe(true);
    const chunks = [chunkFixture(1, 'one'), chunkFixture(2, 'two')];
    expect(toSources(bounded, chunks).sources).toHaveLength(2);
    expect(toSources(boundAnswer({ text: `Intro [2]. ${'word '.repeat(400)}`, citations: [0, 1] }, 600), chunks).sources).toHaveLength(1);
  });

  it('never leaves half a citation marker and closes a code block the cut left open', () => {
    const text = `Here:\n\n\`\`\`\n${'x = 1\n'.repeat(300)}\`\`\`\nDone [1].`;
    const bounded = boundAnswer({ text, citations: [0] }, 800);
    expect(bounded.text.match(/^```/gm)).toHaveLength(2);
    const marker = boundAnswer({ text: `${'a'.repeat(700)}[12345]${'b'.repeat(700)}`, citations: [0] }, 800).text;
    expect(marker).not.toMatch(/\[\d*\n/);
  });

  it('says so when the model itself cut the answer off', () => {
    expect(boundAnswer({ text: 'We open at', citations: [], finish: 'truncated' }, 1000)).toEqual({
      text: `We open at\n\n${CUT_OFF_NOTE}`,
      citations: [],
      finish: 'truncated',
    });
  });
});

describe('historyWithin', () => {
  const u = (text: string): ChatTurn => ({ role: 'user', text });
  const a = (text: string): ChatTurn => ({ role: 'assistant', text });

  it('leaves out empty answers and the questions they answered, so no turn is empty and roles alternate', () => {
    expect(historyWithin([u('one'), a(''), u('two'), a('2'), u('three'), a('  '), u('four'), a('4')], 1000)).toEqual([u('two'), a('2'), u('four'), a('4')]);
    expect(historyWithin([u('one'), u('two'), a('2')], 1000)).toEqual([u('two'), a('2')]);
  });

  it('keeps the latest pairs that fit in the budget', () => {
    const turns = [u('first'), a('x'.repeat(300)), u('second'), a('y'.repeat(30)), u('third'), a('z'.repeat(30))];
    expect(historyWithin(turns, 1000)).toEqual(turns);
    expect(historyWithin(turns, 20)).toEqual(turns.slice(4));
    expect(historyWithin(turns, 5)).toEqual([]);
  });

  it('drops old pairs a few at a time, so the history stays the same prefix for several follow-ups', () => {
    const chat: ChatTurn[] = [];
    const starts: string[] = [];
    for (let i = 0; i < 40; i++) {
      chat.push(u(`question ${String(i).padStart(2, '0')}`), a('answer '.repeat(40)));
      const sent = historyWithin(chat, 1000);
      expect(sent.reduce((n, t) => n + estimateTokens(t.text), 0)).toBeLessThanOrEqual(1000);
      starts.push(sent[0].text);
    }
    const changes = starts.filter((s, i) => i > 0 && s !== starts[i - 1]).length;
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThanOrEqual(Math.ceil(40 / HISTORY_STEP));
  });

  it('estimates more tokens than characters for text that is not ASCII', () => {
    expect(estimateTokens('abcdef')).toBe(2);
    expect(estimateTokens('黑豹队的防守')).toBe(6);
  });
});
