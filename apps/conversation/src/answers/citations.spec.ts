import fc from 'fast-check';
import { GeneratedAnswer } from './answer-generator';
import { composeAnswer, escapeCitationMarkers, fromChunkMarkers, toSources } from './citations';
import { chunkFixture } from '../../../../test/stand-ins/chunks';

const chunks = [0, 1, 2, 3].map((n) => chunkFixture(n, `Text of chunk ${n}.`));

describe('composeAnswer', () => {
  it('numbers citations by first appearance and puts markers after each cited segment', () => {
    const answer = composeAnswer([
      { text: 'Paris is the capital.', citations: [{ chunk: 2, quote: 'Paris is the capital of France.' }] },
      { text: ' It is large.', citations: [{ chunk: 0 }, { chunk: 2 }] },
      { text: ' Plain words.', citations: [] },
    ]);
    expect(answer).toEqual({
      text: 'Paris is the capital. [1] It is large. [2][1] Plain words.',
      citations: [2, 0],
      quotes: { 2: 'Paris is the capital of France.' },
    });
  });

  it('keeps trailing whitespace after the marker and ignores invalid chunk numbers', () => {
    expect(
      composeAnswer([
        { text: 'The show began in ', citations: [] },
        { text: '2002 ', citations: [{ chunk: 1 }, { chunk: -1 }, { chunk: 1.5 }] },
        { text: 'on Fox.', citations: [] },
      ]).text,
    ).toBe('The show began in 2002 [1] on Fox.');
  });

  it('escapes bracketed numbers in the text so they are not taken for citations', () => {
    const answer = composeAnswer([{ text: 'Smith said so.[3] See [12].', citations: [{ chunk: 0 }] }]);
    expect(answer.text).toBe('Smith said so.\\[3\\] See \\[12\\]. [1]');
    expect(toSources(answer, chunks)).toEqual({ text: 'Smith said so.\\[3\\] See \\[12\\]. [1]', sources: [expect.objectContaining({ index: 1, item_id: 'item-0' })] });
  });

  it('does not let brackets split across segments form a marker', () => {
    expect(
      composeAnswer([
        { text: 'see [1', citations: [] },
        { text: '] and [', citations: [] },
        { text: '2]', citations: [{ chunk: 0 }] },
      ]).text,
    ).toBe('see \\[1] and \\[2] [1]');
  });

  it('escapes only bracketed numbers', () => {
    expect(escapeCitationMarkers('[a] [1] \\[2\\] [1,2]')).toBe('[a] \\[1\\] \\[2\\] [1,2]');
  });

  it('takes a Claude response as it comes: text blocks citing search results by index, with the cited text', () => {
    const blocks = [
      { type: 'text', text: 'According to the data, ', citations: null },
      { type: 'text', text: 'the show began in 2002', citations: [{ type: 'search_result_location', search_result_index: 1, cited_text: 'It began airing in 2002.' }] },
      { type: 'text', text: ' and was created by Simon Fuller', citations: [{ type: 'search_result_location', search_result_index: 0, cited_text: 'Created by Simon Fuller.' }] },
      { type: 'text', text: '.', citations: null },
    ];
    const answer = composeAnswer(blocks.map((b) => ({ text: b.text, citations: (b.citations ?? []).map((c) => ({ chunk: c.search_result_index, quote: c.cited_text })) })));
    expect(answer).toEqual({
      text: 'According to the data, the show began in 2002 [1] and was created by Simon Fuller [2].',
      citations: [1, 0],
      quotes: { 1: 'It began airing in 2002.', 0: 'Created by Simon Fuller.' },
    });
    expect(toSources(answer, chunks).sources.map((s) => [s.index, s.item_id, s.snippet])).toEqual([
      [1, 'item-1', 'It began airing in 2002.'],
      [2, 'item-0', 'Created by Simon Fuller.'],
    ]);
  });
});

describe('toSources', () => {
  it('lists cited chunks as sources numbered 1..n in order of first appearance', () => {
    const answer: GeneratedAnswer = { text: 'A [1]. B [2]. C [1][3].', citations: [3, 1, 0], quotes: { 1: 'The quoted passage.' } };
    const { text, sources } = toSources(answer, chunks);
    expect(text).toBe('A [1]. B [2]. C [1][3].');
    expect(sources).toEqual([
      { index: 1, item_id: 'item-3', id: chunks[3].id, collection: 'docs', url: 'https://example.com/items/3', snippet: chunks[3].snippet },
      { index: 2, item_id: 'item-1', id: chunks[1].id, collection: 'docs', url: 'https://example.com/items/1', snippet: 'The quoted passage.' },
      { index: 3, item_id: 'item-0', id: chunks[0].id, collection: 'docs', url: 'https://example.com/items/0', snippet: chunks[0].snippet },
    ]);
  });

  it('drops markers that point at no citation or no chunk, and renumbers without gaps', () => {
    const answer: GeneratedAnswer = { text: 'A [2]. B [5]. C [3] and [1].', citations: [9, 2, 1] };
    expect(toSources(answer, chunks)).toEqual({
      text: 'A [1]. B. C [2] and.',
      sources: [expect.objectContaining({ index: 1, item_id: 'item-2' }), expect.objectContaining({ index: 2, item_id: 'item-1' })],
    });
  });

  it('gives one source per item when several of its chunks are cited', () => {
    const twoChunks = [chunkFixture(0, 'First part.'), chunkFixture(0, 'Second part.', { chunk: 1 }), chunkFixture(1, 'Other.')];
    const { text, sources } = toSources({ text: 'X [1][2]. Y [3]. Z [2].', citations: [0, 1, 2] }, twoChunks);
    expect(text).toBe('X [1]. Y [2]. Z [1].');
    expect(sources.map((s) => s.item_id)).toEqual(['item-0', 'item-1']);
  });

  it('cuts long quotes at a word boundary', () => {
    const quote = 'word '.repeat(100).trim();
    const { sources } = toSources({ text: 'Q [1]', citations: [0], quotes: { 0: quote } }, chunks);
    expect(sources[0].snippet.length).toBeLessThanOrEqual(301);
    expect(sources[0].snippet).toMatch(/^word( word)+…$/);
  });

  it('never cuts a quote inside an emoji: the snippet stays valid text', () => {
    const quote = `${'a'.repeat(299)}😀 and more words after it`;
    const { sources } = toSources({ text: 'Q [1]', citations: [0], quotes: { 0: quote } }, chunks);
    // Its 300th character is the emoji, two UTF-16 units: whole, not its first half.
    expect(sources[0].snippet).toBe(`${'a'.repeat(299)}😀…`);
  });

  it('keeps a marker that follows text written like one: the text stays escaped, the marker stays', () => {
    // The segment's own "\[1]" is text; its first citation points at no chunk and is dropped, its second is [1].
    const { text, sources } = toSources(composeAnswer([{ text: '\\[1]', citations: [{ chunk: 4 }, { chunk: 0 }] }]), chunks);
    expect(text).toBe('\\[1][1]');
    expect(sources.map((s) => [s.index, s.item_id])).toEqual([[1, 'item-0']]);
  });

  it('leaves an answer that cites nothing without sources', () => {
    expect(toSources({ text: "The data doesn't say.", citations: [] }, chunks)).toEqual({ text: "The data doesn't say.", sources: [] });
  });

  it('whatever the segments: every marker exists in sources, numbered 1..n by first appearance, and no valid citation is lost', () => {
    const segment = fc.record({
      text: fc.stringMatching(/^[ a-z.[\]0-9\\]{0,12}$/),
      citations: fc.array(fc.record({ chunk: fc.integer({ min: -1, max: 6 }) }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const { text, sources } = toSources(composeAnswer(segments), chunks);
        const cited = [...text.matchAll(/(?<!\\)\[(\d+)\]/g)].map((m) => Number(m[1]));
        const firsts = [...new Set(cited)];
        expect(firsts).toEqual(sources.map((s) => s.index));
        expect(sources.map((s) => s.index)).toEqual(sources.map((_, i) => i + 1));
        const valid = new Set(segments.flatMap((s) => s.citations.map((c) => c.chunk)).filter((c) => c >= 0 && c < chunks.length));
        expect(sources.map((s) => s.item_id).sort()).toEqual([...valid].map((c) => `item-${c}`).sort());
      }),
      { numRuns: 500 },
    );
  });
});

describe('fromChunkMarkers', () => {
  it('turns markers that point at chunks (from 1) into citations numbered by first appearance', () => {
    const answer = fromChunkMarkers('We open at 9am.[3] Closed on Sundays.[1][3]', chunks.length);
    expect(answer).toEqual({ text: 'We open at 9am.[1] Closed on Sundays.[2][1]', citations: [2, 0] });
    expect(toSources(answer, chunks).sources.map((s) => [s.index, s.item_id, s.snippet])).toEqual([
      [1, 'item-2', chunks[2].snippet],
      [2, 'item-0', chunks[0].snippet],
    ]);
  });

  it('drops markers that point at no chunk', () => {
    expect(fromChunkMarkers('A [0] b [5] c [2].', chunks.length)).toEqual({ text: 'A b c [1].', citations: [1] });
    expect(fromChunkMarkers('Nothing to cite.', 0)).toEqual({ text: 'Nothing to cite.', citations: [] });
  });
});
