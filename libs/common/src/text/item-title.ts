/** Keys of an item's `data` that hold its title, whatever their case. */
const TITLE_KEYS = ['title', 'name', 'heading', 'subject', 'headline'];

/** The key of an item's title: the first title-like key (title, name, heading, subject, headline) with a scalar value. */
export function titleKey(data: Record<string, unknown>): string | undefined {
  return Object.keys(data).find((k) => TITLE_KEYS.includes(k.toLowerCase()) && isScalar(data[k]));
}

/** An item's own title, as ingestion indexes it ({@link titleKey}, tags dropped); '' when it has none. */
export function itemTitle(data: Record<string, unknown>): string {
  const key = titleKey(data);
  return key ? stripTags(String(data[key])).trim() : '';
}

export function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** Markup in item values is presentation, not content: tags are dropped, their text kept. */
export function stripTags(text: string): string {
  return text
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[a-z][^>]*>/gi, ' ')
    .replace(/[ \t]{2,}/g, ' ');
}
