import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });

const ALLOWED = {
  allowedTags: [
    'p', 'br', 'strong', 'em', 'b', 'i', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'del', 's', 'sup', 'sub',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel'], th: ['align'], td: ['align'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape' as const,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }) },
};

/**
 * Markdown to HTML that is safe to put in a page whatever the items contained: raw HTML in the Markdown is
 * escaped by the renderer, then the output passes an allowlist (no scripts, styles, frames, event handlers, or
 * links other than http, https and mailto).
 */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(markdown.render(text), ALLOWED).trim();
}
