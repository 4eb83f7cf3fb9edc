import { isScalar, itemTitle, stripTags, titleKey } from '@askdata/common';

/** Keys whose value is the body itself: written without a label. */
const BODY_KEYS = ['text', 'body', 'content', 'description', 'abstract', 'summary'];

/**
 * Turns an item's free-form `data` into readable text for indexing: keys become labels ("Price: 12"), nested
 * objects are flattened with their path ("Specs > Weight: 3 kg"), arrays of scalars are joined with commas.
 * A title-like field (title, name, heading, subject) is also returned on its own, since it weighs more in search.
 */
export function normalizeItem(data: Record<string, unknown>): { title: string; text: string } {
  const title = itemTitle(data);
  const skip = titleKey(data);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === skip) continue;
    write(lines, [key], value, 0);
  }
  return { title, text: lines.join('\n') };
}

function label(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function write(lines: string[], path: string[], value: unknown, depth: number): void {
  if (value === null || value === undefined || depth > 8) return;
  const name = path.map(label).join(' > ');
  if (isScalar(value)) {
    const text = stripTags(String(value)).trim();
    if (!text) return;
    lines.push(path.length === 1 && BODY_KEYS.includes(path[0].toLowerCase()) ? text : `${name}: ${text}`);
  } else if (Array.isArray(value)) {
    if (value.every(isScalar)) {
      const text = value
        .map((v) => String(v).trim())
        .filter(Boolean)
        .join(', ');
      if (text) lines.push(`${name}: ${text}`);
    } else value.forEach((v, i) => write(lines, [...path.slice(0, -1), `${path[path.length - 1]} ${i + 1}`], v, depth + 1));
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) write(lines, [...path, k], v, depth + 1);
  }
}
