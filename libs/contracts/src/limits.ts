/** Hard bounds of the contract. Configurable limits (decisions.md, "Limits") are enforced by the gateway. */
export const Bounds = {
  itemIdChars: 255,
  slugPattern: /^[a-z0-9][a-z0-9_-]{0,63}$/,
  nameChars: 255,
  perPageDefault: 15,
  perPageMax: 100,
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
} as const;
