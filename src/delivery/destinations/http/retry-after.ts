// Parses an HTTP Retry-After header into a wait in milliseconds.

/**
 * RFC 9110 section 10.2.3: `Retry-After = HTTP-date / delay-seconds`. Returns undefined for a missing or
 * malformed value; a date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form names its month in letters; without this, Date.parse reads "-5" as a year.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
