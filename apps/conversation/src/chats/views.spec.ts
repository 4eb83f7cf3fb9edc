import { chatName } from './views';

const unpaired = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('chatName', () => {
  it('keeps a short question whole, spaces folded', () => {
    expect(chatName('  When are\n you   open?  ')).toBe('When are you open?');
  });

  it('cuts a long question at 80 characters, on a word boundary', () => {
    const name = chatName(`${'word '.repeat(30)}end`);
    expect(name).toBe('word '.repeat(16).trimEnd());
    expect(chatName('a'.repeat(100))).toBe('a'.repeat(80));
  });

  it('counts an emoji as one character and never cuts one in half', () => {
    expect(chatName('😀'.repeat(100))).toBe('😀'.repeat(80));
    const name = chatName(`${'a'.repeat(79)}😀😀`);
    expect(name).toBe(`${'a'.repeat(79)}😀`);
    expect(unpaired.test(name)).toBe(false);
  });

  it('keeps a letter with its accents and an emoji sequence whole', () => {
    // e + combining acute: two code points each; a family: seven.
    expect(chatName('e\u0301'.repeat(60))).toBe('e\u0301'.repeat(40));
    const family = '👩\u200d👩\u200d👧\u200d👦';
    expect(chatName(family.repeat(30))).toBe(family.repeat(11));
  });
});
