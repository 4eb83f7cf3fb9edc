/** Hard bounds of the contract. Configurable limits (decisions.md, "Limits") are enforced by the gateway. */
export const Bounds = {
  itemIdChars: 255,
  slugPattern: /^[a-z0-9][a-z0-9_-]{0,63}$/,
  nameChars: 255,
  perPageDefault: 15,
  /** The default of PER_PAGE_MAX, which the gateway enforces. */
  perPageMax: 100,
  /** The largest PER_PAGE_MAX an operator may set: a page no client could ever ask beyond. */
  perPageCeiling: 1000,
  /** Beyond any real list; keeps offsets inside what the database can count. */
  pageMax: 10_000_000,
  searchLimitDefault: 10,
  searchLimitMax: 100,
  questionChars: 4000,
  feedbackChars: 1000,
  upsertItems: 500,
  identifierChars: 255,
  /** Tenants are stored as 32-bit integers. */
  tenantMax: 2_147_483_647,
  /** How deeply a request body may nest objects and arrays (the body itself is level 0). */
  jsonDepth: 32,
  fieldNameChars: 128,
  /** Metadata fields a collection declares or infers, together. */
  collectionFields: 100,
  /** Upserts an item lists (`Item.upserts`), newest first. */
  itemUpserts: 20,
  /** Chunks of one item the admin API lists. */
  itemChunksListed: 500,
  /** Values of one `$in` filter condition. */
  filterInValues: 1000,
  fieldDescriptionChars: 500,
} as const;

/**
 * A metadata field name that can be declared, inferred and filtered on, in every index backend: 1..128 characters,
 * not starting with `$` (operators), without control characters or double quotes (Qdrant addresses a name that is
 * not a plain word by quoting it). Spaces, dots, brackets and any script are fine.
 */
export const FIELD_NAME_RULE = `1 to ${Bounds.fieldNameChars} characters, no quotes, not starting with $`;

export function isFieldName(name: string): boolean {
  const n = charCount(name);
  // eslint-disable-next-line no-control-regex -- control characters are what a field name may not hold.
  return n >= 1 && n <= Bounds.fieldNameChars && !name.startsWith('$') && !/["\u0000-\u001f\u007f]/.test(name);
}

/**
 * Length in characters (Unicode code points), as the limits count it and as PostgreSQL's varchar(n) does: an emoji
 * outside the Basic Multilingual Plane is one character, though JavaScript's `length` counts two.
 */
export function charCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The longest start of `text` of at most `max` characters (code points) that ends between two graphemes: a cut never
 * falls inside an emoji's surrogate pair or sequence, nor between a letter and its accents.
 */
export function wholeGraphemes(text: string, max: number): string {
  let end = 0;
  let count = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    count += charCount(segment);
    if (count > max) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
