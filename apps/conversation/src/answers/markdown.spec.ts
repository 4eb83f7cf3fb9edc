import fc from 'fast-check';
import { renderMarkdown } from './markdown';

const ALLOWED_TAGS = new Set([
  'p',
  'br',
  'hr',
  'strong',
  'em',
  'b',
  'i',
  's',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'sup',
  'sub',
]);
const ALLOWED_ATTRIBUTES = new Set(['href', 'rel', 'start', 'style']);

/** Every tag and attribute in the HTML, as a browser would read them. */
function tags(html: string): Array<{ name: string; attributes: Array<[string, string]> }> {
  return [...html.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)].map((m) => ({
    name: m[1].toLowerCase(),
    attributes: [...m[2].matchAll(/([^\s=/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)].map((a) => [a[1].toLowerCase(), a[2] ?? a[3] ?? a[4] ?? '']),
  }));
}

/** Nothing in the HTML can run: only allowlisted tags and attributes, links only to http(s) and mailto. */
function expectInert(html: string): void {
  for (const tag of tags(html)) {
    expect(ALLOWED_TAGS).toContain(tag.name);
    for (const [name, value] of tag.attributes) {
      expect(ALLOWED_ATTRIBUTES).toContain(name);
      expect(name.startsWith('on')).toBe(false);
      if (name === 'href') expect(value).toMatch(/^(https?:\/\/|mailto:)/);
      if (name === 'style') expect(value).toMatch(/^text-align:(left|right|center);?$/);
    }
  }
  const open: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z][\w-]*)[^>]*>/g)) {
    if (['br', 'hr'].includes(m[2])) continue;
    if (m[1]) expect(open.pop()).toBe(m[2]);
    else open.push(m[2]);
  }
  expect(open).toEqual([]);
  // Raw HTML in the text is shown escaped, as words: only what sits inside a real tag could act.
  expect(html).not.toMatch(/<\s*(script|style|iframe|svg|img|object|embed|form|input|math|link|meta|base)\b/i);
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/<[a-z][^>]*\s(href|src|action|formaction|xlink:href)\s*=\s*["']?\s*(javascript|vbscript|data):/i);
}

describe('renderMarkdown', () => {
  it('renders Markdown', () => {
    expect(renderMarkdown('**Paris** is the *capital* [1].\n\n- one\n- two\n\n`code`')).toBe(
      '<p><strong>Paris</strong> is the <em>capital</em> [1].</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<p><code>code</code></p>',
    );
  });

  it('links http(s) and mailto URLs, bare or written as links, with rel="noopener noreferrer nofollow"', () => {
    expect(renderMarkdown('See https://example.com/a?b=1 or [docs](https://docs.example.com "Docs") or <mailto:a@example.com>.')).toBe(
      '<p>See <a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow">https://example.com/a?b=1</a> or ' +
        '<a href="https://docs.example.com" rel="noopener noreferrer nofollow">docs</a> or ' +
        '<a href="mailto:a@example.com" rel="noopener noreferrer nofollow">mailto:a@example.com</a>.</p>',
    );
  });

  it('replaces a rel given in the Markdown', () => {
    expect(renderMarkdown('[x](https://example.com)')).toBe('<p><a href="https://example.com" rel="noopener noreferrer nofollow">x</a></p>');
  });

  it('keeps tables with their alignment', () => {
    const html = renderMarkdown('| a | b |\n|:--|--:|\n| 1 | 2 |');
    expect(html).toContain('<th style="text-align:left">a</th>');
    expect(html).toContain('<td style="text-align:right">2</td>');
    expectInert(html);
  });

  it('keeps citation markers as text even when the text defines them as references', () => {
    const html = renderMarkdown('[1]: https://evil.example\n\nParis [1].');
    expect(html).toContain('<p>Paris [1].</p>');
    expect(html).not.toMatch(/<a[^>]*>\[1\]<\/a>/);
  });

  const hostile: Array<[string, string]> = [
    ['script tag', '<script>alert(1)</script>'],
    ['script in a paragraph', 'Hello <script src="https://evil.example/x.js"></script> world'],
    ['img onerror', '<img src=x onerror=alert(1)>'],
    ['svg onload', '<svg onload=alert(1)><circle r="10"/></svg>'],
    ['svg with script', '<svg><script>alert(1)</script></svg>'],
    ['iframe', '<iframe src="javascript:alert(1)"></iframe>'],
    ['style tag', '<style>body{background:url(javascript:alert(1))}</style>'],
    ['event handler on a link', '<a href="https://ok.example" onclick="alert(1)">x</a>'],
    ['javascript: link in Markdown', '[x](javascript:alert(1))'],
    ['javascript: link in HTML', '<a href="javascript:alert(1)">x</a>'],
    ['uppercase and spaced javascript:', '[x](  JaVaScRiPt:alert(1) )'],
    ['tab-obfuscated javascript:', '[x](jav&#x09;ascript:alert(1))'],
    ['tab-obfuscated javascript: in HTML', '<a href="jav&#x09;ascript:alert(1)">x</a>'],
    ['entity-encoded javascript:', '[x](&#106;&#97;vascript:alert(1))'],
    ['percent-encoded javascript:', '[x](javascript%3Aalert(1))'],
    ['newline in the scheme', '[x](java\nscript:alert(1))'],
    ['vbscript: link', '[x](vbscript:msgbox(1))'],
    ['data: link', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['data: image', '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)'],
    ['remote image', '![x](https://evil.example/track.png)'],
    ['autolink with javascript:', '<javascript:alert(1)>'],
    ['protocol-relative link', '[x](//evil.example) and //evil.example'],
    ['relative link', '[x](/admin)'],
    ['nested tags', '<<script>script>alert(1)<</script>/script>'],
    ['broken-up tag', '<scr<script>ipt>alert(1)</script>'],
    ['attribute breakout in a title', '[x](https://ok.example "a\\" onmouseover=\\"alert(1)")'],
    ['quotes in a URL', '[x](https://ok.example/"onmouseover="alert(1))'],
    ['link text with HTML', '[<img src=x onerror=alert(1)>](https://ok.example)'],
    ['code block with HTML', '```html\n<script>alert(1)</script>\n```'],
    ['reference link to javascript:', '[x][a]\n\n[a]: javascript:alert(1)'],
    ['html comment and CDATA', '<!-- <script>alert(1)</script> --><![CDATA[<script>alert(1)</script>]]>'],
    ['math and form', '<math><mtext><form action="javascript:alert(1)"><input type=submit></form></mtext></math>'],
  ];

  it.each(hostile)('leaves nothing active from %s', (_name, text) => {
    const html = renderMarkdown(text);
    expectInert(html);
  });

  it('shows raw HTML as text rather than dropping the words', () => {
    expect(renderMarkdown('Use <b>bold</b> & <script>x</script>')).toBe('<p>Use &lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;x&lt;/script&gt;</p>');
  });

  it('leaves a link to a forbidden target as text', () => {
    expect(renderMarkdown('[click](jav&#x09;ascript:alert(1)) [admin](/admin) [x]() ok https://ok.example')).toBe(
      '<p>[click](jav\tascript:alert(1)) [admin](/admin) <a>x</a> ok <a href="https://ok.example" rel="noopener noreferrer nofollow">https://ok.example</a></p>',
    );
  });

  it('leaves nothing active whatever hostile fragments are combined', () => {
    const fragment = fc.constantFrom(
      '<script>',
      '</script>',
      '<img src=x ',
      'onerror=',
      'alert(1)',
      '>',
      '<',
      '"',
      "'",
      '[x](',
      ')',
      'javascript:',
      'jav&#x09;ascript:',
      '&#106;',
      'data:text/html,',
      '<svg ',
      'onload=',
      '<a href="',
      '](',
      '\n',
      '\n\n',
      '`',
      '![',
      '<iframe src=',
      'https://ok.example',
      ' ',
      'text',
      '&',
      ':',
      '/',
      '//',
      '*',
      '|',
      '- ',
      '1. ',
      '[1]',
      '[1]: ',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 25 }), (parts) => {
        expectInert(renderMarkdown(parts.join('')));
      }),
      { numRuns: 500 },
    );
  });

  it('returns an empty string for empty text', () => {
    expect(renderMarkdown('')).toBe('');
  });
});
