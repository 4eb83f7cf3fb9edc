/** ISO-8601 UTC with microseconds: `2026-11-22T10:11:19.123456Z` (JavaScript dates carry milliseconds). */
export function isoMicro(value: Date | string): string;
export function isoMicro(value: Date | string | null | undefined): string | null;
export function isoMicro(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const d = typeof value === 'string' ? new Date(value) : value;
  // toISOString() always ends in `.sssZ`.
  return `${d.toISOString().slice(0, -1)}000Z`;
}
