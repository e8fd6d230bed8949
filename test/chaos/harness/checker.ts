// The checker: compares what each destination received with what it should have received, per
// (event, destination) pair, and counts the missing, the duplicated and the unexpected.

export interface DestinationCheck {
  readonly destination: string;
  /** Events this destination must have. */
  readonly expected: number;
  /** Deliveries received, duplicates included. */
  readonly deliveries: number;
  /** Distinct expected events received. */
  readonly distinct: number;
  /** Expected events never received: must be 0. */
  readonly missing: number;
  /** Deliveries beyond the first of an expected event (at least once allows them; they are counted). */
  readonly duplicates: number;
  /** Deliveries of events this destination should never have received. */
  readonly unexpected: number;
  /** A few missing and unexpected sequence numbers, for the report. */
  readonly missingSample: readonly number[];
  readonly unexpectedSample: readonly number[];
}

const SAMPLE = 10;

/**
 * `expected` lists the sequence numbers the destination must receive (each once); `delivered` lists
 * what it did receive, in any order, duplicates kept.
 */
export function checkDestination(destination: string, expected: Iterable<number>, delivered: Iterable<number>): DestinationCheck {
  const want = new Set(expected);
  const seen = new Map<number, number>();
  let deliveries = 0;
  for (const seq of delivered) {
    deliveries++;
    seen.set(seq, (seen.get(seq) ?? 0) + 1);
  }
  let distinct = 0;
  let duplicates = 0;
  let unexpected = 0;
  const missingSample: number[] = [];
  const unexpectedSample: number[] = [];
  for (const seq of want) {
    const n = seen.get(seq);
    if (n === undefined) {
      if (missingSample.length < SAMPLE) missingSample.push(seq);
      continue;
    }
    distinct++;
    duplicates += n - 1;
  }
  for (const [seq, n] of seen) {
    if (want.has(seq)) continue;
    unexpected += n;
    if (unexpectedSample.length < SAMPLE) unexpectedSample.push(seq);
  }
  return {
    destination,
    expected: want.size,
    deliveries,
    distinct,
    missing: want.size - distinct,
    duplicates,
    unexpected,
    missingSample,
    unexpectedSample,
  };
}

/** Totals over several destinations: the (event, destination) pairs. */
export function totals(checks: readonly DestinationCheck[]): { expected: number; missing: number; duplicates: number; unexpected: number } {
  return checks.reduce(
    (t, c) => ({ expected: t.expected + c.expected, missing: t.missing + c.missing, duplicates: t.duplicates + c.duplicates, unexpected: t.unexpected + c.unexpected }),
    { expected: 0, missing: 0, duplicates: 0, unexpected: 0 },
  );
}
