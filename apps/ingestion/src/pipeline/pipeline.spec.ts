import fc from 'fast-check';
import { chunkText, countTokens } from './chunk';
import { normalizeItem } from './normalize';

describe('normalizeItem', () => {
  it('labels keys, flattens nested objects and arrays, and lifts the title', () => {
    const { title, text } = normalizeItem({
      title: 'Trail shoe',
      description: 'Light and grippy.',
      price: 120,
      inStock: true,
      specs: { weight: '280 g', drop: { mm: 6 } },
      colors: ['red', 'blue'],
      reviews: [{ stars: 5, text: 'Great' }],
      empty: null,
    });
    expect(title).toBe('Trail shoe');
    expect(text.split('\n')).toEqual([
      'Light and grippy.',
      'Price: 120',
      'In stock: true',
      'Specs > Weight: 280 g',
      'Specs > Drop > Mm: 6',
      'Colors: red, blue',
      'Reviews 1 > Stars: 5',
      'Reviews 1 > Text: Great',
    ]);
  });

  it('drops markup tags, scripts and styles, keeping the text', () => {
    const { title, text } = normalizeItem({ title: '<b>Bold</b> name', body: 'Hi <script>alert(1)</script><a href="javascript:x()">there</a> <img src=x onerror=alert(2)>you.' });
    expect(title).toBe('Bold name');
    expect(text).toBe('Hi there you.');
  });

  it('has no title when no title-like field exists', () => {
    expect(normalizeItem({ body: 'Just text' })).toEqual({ title: '', text: 'Just text' });
  });
});

describe('chunkText', () => {
  const sentence = (i: number) => `Sentence number ${i} talks about topic ${i} in some detail.`;
  const long = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');

  it('keeps short text as one chunk', () => {
    expect(chunkText('A short note.', { maxTokens: 50, overlapTokens: 10 })).toEqual(['A short note.']);
  });

  it('returns nothing for blank text', () => {
    expect(chunkText('   ', { maxTokens: 50, overlapTokens: 10 })).toEqual([]);
  });

  it('respects the size, cuts at sentence ends and overlaps consecutive chunks', () => {
    const chunks = chunkText(long, { maxTokens: 40, overlapTokens: 12 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(countTokens(c)).toBeLessThanOrEqual(40);
      expect(c).toMatch(/^Sentence number \d+/);
      expect(c).toMatch(/detail\.$/);
    }
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = chunks[i - 1].split(/(?<=\.)\s/).pop()!;
      expect(chunks[i].startsWith(lastOfPrevious)).toBe(true);
    }
    // Every sentence survives somewhere.
    for (let i = 0; i < 60; i++) expect(chunks.some((c) => c.includes(sentence(i)))).toBe(true);
  });

  it('keeps the line breaks of a long record, so that its `Label: value` lines stay lines in every chunk', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `Line items ${i + 1} > Product: Orla desk lamp model ${i}`);
    const chunks = chunkText(lines.join('\n'), { maxTokens: 60, overlapTokens: 12 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) for (const line of c.split('\n')) expect(lines).toContain(line);
  });

  it('splits a single overlong sentence', () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    const chunks = chunkText(words, { maxTokens: 30, overlapTokens: 0 });
    expect(chunks.length).toBe(4);
    expect(chunks.join(' ')).toBe(words);
  });

  // Words with the punctuation, apostrophes, hyphens and non-Latin letters that decide where tokens end.
  const word = fc.oneof(
    fc.constantFrom('cell', "it's", 'e.g.', 'state-of-the-art', '--', '(see', 'p53).', '3.5%', 'naïve', 'データ', '!?', '.'),
    fc.stringMatching(/^[a-z]{1,8}[.,;]?$/),
  );

  it('counts the tokens of any text as the token pattern matches them', () => {
    const pattern = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]+/gu;
    const char = fc.constantFrom(...'aZ09 \t\n\r\v\f\'.-,;:!?()"/_~\u0000\u007f', 'é', '’', '\u00a0', 'デ');
    fc.assert(
      fc.property(fc.array(char, { maxLength: 60 }), fc.boolean(), (chars, ascii) => {
        const text = (ascii ? chars.filter((c) => c.charCodeAt(0) < 128) : chars).join('');
        expect(countTokens(text)).toBe(text.match(pattern)?.length ?? 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('never splits a token at a space: the tokens of words joined by spaces add up', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (words) => {
        expect(countTokens(words.join(' '))).toBe(words.reduce((n, w) => n + countTokens(w), 0));
      }),
    );
  });

  it('keeps every chunk within the size and loses no word of a long run-on text', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 400 }), fc.integer({ min: 4, max: 60 }), (words, maxTokens) => {
        const text = words.join(' ');
        const chunks = chunkText(text, { maxTokens, overlapTokens: 0 });
        for (const c of chunks) expect(countTokens(c) <= maxTokens || !c.includes(' ')).toBe(true);
        expect(chunks.join(' ')).toBe(text);
      }),
    );
  });
});
