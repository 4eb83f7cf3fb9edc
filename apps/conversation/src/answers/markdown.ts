import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/** Link targets that are kept: absolute http(s) and mailto URLs only (no relative, protocol-relative, data: or javascript:). */
const SAFE_HREF = /^(https?:\/\/|mailto:)/i;

/**
 * Raw HTML in the Markdown is escaped, bare URLs become links, a link to anything but a safe target stays text,
 * and reference definitions are off: a line such as `[1]: https://example.com` quoted from an item must not turn
 * the answer's citation markers into links.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false }).disable('reference');
markdown.validateLink = (url: string) => SAFE_HREF.test(url.trim());

const POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
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
  ],
  // No title on links: a title is free text, and text that reads like an attribute (`" onclick="`) would worry
  // every scanner even though it is escaped.
  allowedAttributes: { a: ['href', 'rel'], ol: ['start'], th: ['style'], td: ['style'] },
  // markdown-it writes table alignment as style="text-align:..."; nothing else may be styled.
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  enforceHtmlBoundary: false,
  transformTags: {
    // The renderer already keeps only safe targets; should another get through, the link loses it (an <a>
    // without href is inert; renaming the tag instead would unbalance the sanitizer's closing tags).
    a: (_tag, attribs): sanitizeHtml.Tag => {
      const href = (attribs.href ?? '').trim();
      const safe: sanitizeHtml.Attributes = { href, rel: 'noopener noreferrer nofollow' };
      return { tagName: 'a', attribs: SAFE_HREF.test(href) ? safe : {} };
    },
  },
};

/**
 * Markdown to HTML that is safe to put in a page whatever the items contained: the renderer escapes raw HTML and
 * refuses javascript:, vbscript:, file: and data: links; the result then passes an allowlist of tags and
 * attributes (no script, style, iframe, svg, img, no event handlers), links keep only absolute http, https and
 * mailto targets and get rel="noopener noreferrer nofollow".
 */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(markdown.render(text), POLICY).trim();
}
