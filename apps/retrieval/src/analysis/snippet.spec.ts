import { analyze, queryTerms } from '@askdata/common';
import { checkHash, cut, Pieces, piecesBytes, snippet, termHash } from './snippet';

/** Each piece's terms as the pieces keep them: both hashes of each, in the piece's order. */
function termsOfPieces(pieces: Pieces): Array<Array<[number, number]>> {
  const out = Array.from({ length: pieces.origins.length }, () => [] as Array<[number, number, number]>);
  const e = pieces.checks.length;
  pieces.checks.forEach((c, at) => out[pieces.keys[e + at] >> 8].push([pieces.keys[e + at] & 255, pieces.keys[at], c]));
  return out.map((terms) => terms.sort((a, b) => a[0] - b[0]).map(([, h, c]) => [h, c]));
}

/** A word's terms as pieces keep them. */
const hashed = (word: string, language = 'en') => analyze(word, language).map((t) => [termHash(t), checkHash(t)]);

describe('snippet', () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i}`).join(' ');

  it('returns short text whole', () => {
    expect(snippet('Short text.', ['text'])).toBe('Short text.');
  });

  it('finds the passage with the most distinct query terms and marks the cuts', () => {
    const text = `${filler(60)} the boiling point of water is 100 degrees at sea level ${filler(60)}`;
    const s = snippet(text, queryTerms('boiling point of water'), 80);
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).toContain('boiling point of water');
    expect(s.replace(/…/g, '').length).toBeLessThanOrEqual(80);
  });

  it('starts at the beginning when nothing matches', () => {
    const s = snippet(filler(100), ['absent'], 50);
    expect(s.startsWith('filler0 ')).toBe(true);
  });

  it('answers each question from the same text anew, and each language with its own analysis', () => {
    const text = `${filler(40)} the boiling point of water ${filler(40)} the melting point of iron ${filler(40)}`;
    expect(snippet(text, queryTerms('boiling water'), 60)).toContain('boiling point of water');
    expect(snippet(text, queryTerms('melting iron'), 60)).toContain('melting point of iron');
    expect(snippet(text, queryTerms('boiling water'), 60)).toContain('boiling point of water');
    // "running" is "run" in English; German's stemmer leaves it as it is.
    const runs = `${filler(40)} running ${filler(40)} run ${filler(40)}`;
    expect(snippet(runs, ['run'], 40, 'en')).toContain('running');
    expect(snippet(runs, ['run'], 40, 'de')).not.toContain('running');
  });

  it('gives the same snippets from pieces cut once as from the text, whatever the question', () => {
    const texts = [
      `${filler(30)} the boiling point of water is 100 degrees ${filler(50)} water boils at sea level ${filler(20)}`,
      `${'x'.repeat(130)} boiling ${'漢字'.repeat(90)}   water \t\n point ${filler(40)}`,
      `Löwenbräu   ${filler(60)} POINT, (water) boiling! ${filler(10)}`,
      `\u00a0 ${filler(20)} water\u2028point ${filler(40)}  `,
      '   ',
      '',
    ];
    for (const text of texts) {
      const pieces = cut(text, 'en');
      for (const q of ['boiling point of water', 'water', 'level sea', 'absent words', 'point']) {
        for (const size of [40, 80, 240]) expect(snippet(text, queryTerms(q), size, 'en', pieces)).toBe(snippet(text, queryTerms(q), size, 'en'));
      }
    }
    expect(snippet(texts[0], queryTerms('sea level'), 60, 'en', cut(texts[0], 'en'))).toContain('at sea level');
    // Whitespace of any kind is one space in a snippet, none at its ends.
    expect(snippet(texts[3], queryTerms('water point'), 40, 'en', cut(texts[3], 'en'))).toMatch(/^…filler\d+ filler\d+ filler\d+ water point…$/);
  });

  it('cuts a text into its words as /\\S+/g finds them, each with its own analysis, whatever whitespace parts them', () => {
    // Every UTF-16 unit after a letter: whitespace parts words exactly where /\s/ says so.
    const texts = [Array.from({ length: 0x10000 }, (_, c) => `w${String.fromCharCode(c)}`).join('')];
    // Words repeated (found in the memo), words sharing a hash ("zhkzujgd", "zjqbsxen"), long words and mixed scripts.
    texts.push(`water ${'x'.repeat(95)} zhkzujgd\u3000zjqbsxen water\tboils ${'漢字'.repeat(30)} WATER\u00a0Boils, zjqbsxen`);
    for (const text of texts) {
      const words = [...text.matchAll(/\S+/g)].flatMap((m) =>
        m[0].length <= 40 ? [[m.index, m[0]] as const] : [...m[0].matchAll(/\S{1,40}/gu)].map((p) => [m.index + p.index, p[0]] as const),
      );
      const pieces = cut(text, 'en');
      expect([...pieces.origins]).toEqual(words.map(([at]) => at));
      expect([...pieces.lengths]).toEqual(words.map(([, w]) => w.length));
      expect(termsOfPieces(pieces)).toEqual(words.map(([, w]) => hashed(w)));
      // Ascending by hash, as snippets look them up.
      const hashes = [...pieces.keys.slice(0, pieces.checks.length)];
      expect(hashes).toEqual([...hashes].sort((a, b) => a - b));
      // Where the cleaned text's places part from the text's.
      const cleanStart = text.replace(/\s+/g, ' ').trimStart();
      const shift = (i: number) => pieces.shifts.reduce((v, _, s) => (s % 2 === 0 && pieces.shifts[s] <= i ? pieces.shifts[s + 1] : v), 0);
      words.forEach(([at, w], i) => expect(cleanStart.slice(at - shift(i), at - shift(i) + w.length)).toBe(w));
    }
  });

  it('analyses each word as it is, across a vocabulary larger than the memo keeps at once', () => {
    // 150,000 distinct words (more than two generations of the memo), then some of them again: the first ones long let
    // go, the last ones still kept, some in between moved to the newer generation when found again.
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i.toString(36)}ing`);
    const all = termsOfPieces(cut(words.join(' '), 'en'));
    for (let i = 0; i < words.length; i += 997) expect(all[i]).toEqual(hashed(words[i]));
    const again = [...words.slice(0, 50), ...words.slice(70_000, 70_050), ...words.slice(-50)];
    for (const text of [again.join('\n'), again.join(' ')]) expect(termsOfPieces(cut(text, 'en'))).toEqual(again.map((w) => hashed(w)));
  });

  it('counts the terms of pieces of several (text without spaces) in what its pieces take', () => {
    const chinese = '中华人民共和国成立于一九四九年十月一日'.repeat(3);
    expect(cut(chinese, 'zh').checks.length).toBeGreaterThan(cut(chinese, 'zh').origins.length * 3);
    expect(piecesBytes(cut(chinese, 'zh'))).toBeGreaterThan(piecesBytes(cut('abcdefghij '.repeat(6), 'en')));
  });

  it('takes a piece for a query term only when the term is its own, not another with the same hash', () => {
    // "zhkzujgd" and "zjqbsxen" have the same 32-bit FNV-1a hash, by which pieces' terms are found.
    const text = `${filler(20)} zhkzujgd ${filler(60)} zjqbsxen ${filler(20)}`;
    for (const pieces of [cut(text, 'en'), undefined]) {
      expect(snippet(text, ['zjqbsxen'], 80, 'en', pieces)).toContain('zjqbsxen');
      expect(snippet(text, ['zjqbsxen'], 80, 'en', pieces)).not.toContain('zhkzujgd');
      expect(snippet(text, ['zhkzujgd'], 80, 'en', pieces)).toContain('zhkzujgd');
    }
  });

  /** The passage every start is tried for: each piece's window counted one after the other (what `snippet` must equal). */
  function everyStart(text: string, terms: string[], size: number, language: string): string {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (text.length <= size) return clean;
    const { origins, lengths } = cut(text, language);
    const n = origins.length;
    const starts: number[] = [0];
    for (let i = 1; i < n; i++) starts[i] = starts[i - 1] + lengths[i - 1] + (origins[i] > origins[i - 1] + lengths[i - 1] ? 1 : 0);
    if (n === 0 || starts[n - 1] + lengths[n - 1] <= size) return clean;
    const found: Array<string | null> = new Array<string | null>(n).fill(null);
    for (let i = 0; i < n; i++) found[i] = analyze(text.slice(origins[i], origins[i] + lengths[i]), language).find((t) => terms.includes(t)) ?? null;
    let best = { from: 0, to: 0, score: -1 };
    for (let i = 0; i < n; i++) {
      let j = i;
      while (j < n && starts[j] + lengths[j] - starts[i] <= size) j++;
      const distinct = new Set(found.slice(i, j).filter((t) => t !== null)).size;
      if (distinct > best.score) best = { from: i, to: Math.max(i, j - 1), score: distinct };
    }
    const passage = text.slice(origins[best.from], origins[best.to] + lengths[best.to]).replace(/\s+/g, ' ');
    return `${best.from > 0 ? '…' : ''}${passage}${best.to < n - 1 ? '…' : ''}`;
  }

  it('picks the passage trying every start would, for any text, question and size', () => {
    let seed = 7;
    const rand = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * k;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand(xs.length))];
    const words = [
      'water',
      'boils',
      'at',
      'sea',
      'level',
      'the',
      'point',
      'of',
      'iron',
      'melting',
      'running',
      'runs',
      'x'.repeat(45),
      'ab',
      'Ünïcödé',
      '水在海平面沸腾',
      'a-b-c',
      'level-water',
      'iron-sea-point',
    ];
    const spaces = [' ', ' ', ' ', '  ', '\n', '\t ', ' \n\n '];
    let compared = 0;
    for (let t = 0; t < 400; t++) {
      const count = 1 + Math.floor(rand(80));
      const text = (rand(1) < 0.3 ? pick(spaces) : '') + Array.from({ length: count }, () => pick(words) + pick(spaces)).join('');
      const language = pick(['en', 'en', 'de', 'zh']);
      const pieces = cut(text, language);
      // A passage is at least as long as the longest piece (80 UTF-16 units): sizes from there.
      for (const size of [80, 81, 120, 160, 240, 500]) {
        const terms = queryTerms(Array.from({ length: 1 + Math.floor(rand(4)) }, () => pick(words)).join(' '), language);
        const expected = everyStart(text, terms, size, language);
        expect(snippet(text, terms, size, language, pieces)).toBe(expected);
        expect(snippet(text, terms, size, language)).toBe(expected);
        compared++;
      }
    }
    expect(compared).toBe(2400);
  });
});
