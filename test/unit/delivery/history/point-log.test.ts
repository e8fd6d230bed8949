import { describe, expect, it } from 'vitest';
import { Counters, LATENCY_BUCKETS } from '../../../../src/delivery/history/counters.js';
import { CodeTable, PointLog } from '../../../../src/delivery/history/point-log.js';

/** A small seeded generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Counts from zero to 2^50 (a point log holds sums to 2^53, delivered's difference from matched to 2^52), mostly small. */
function countOf(r: () => number): number {
  const x = r();
  if (x < 0.3) return 0;
  if (x < 0.8) return Math.floor(r() * 500);
  if (x < 0.95) return Math.floor(r() * 2 ** 32);
  return 2 ** 50 - Math.floor(r() * 10);
}

const CODES = ['DESTINATION_TIMEOUT', 'DESTINATION_5XX', 'DESTINATION_REFUSED'];

function countersOf(r: () => number, sets: number[]): Counters {
  const c = new Counters();
  c.matched = countOf(r);
  // Delivered below matched, equal to it, above it, or with matched zero: a negative, zero or positive difference.
  const how = r();
  c.delivered = how < 0.4 ? c.matched : how < 0.6 ? Math.max(0, c.matched - Math.floor(r() * 1_000)) : countOf(r);
  c.deliveredBytes = c.delivered > 0 ? countOf(r) : 0;
  if (r() < 0.2) c.parked = countOf(r);
  if (r() < 0.2) c.redriven = countOf(r);
  if (r() < 0.2) c.deadLettered = countOf(r);
  if (r() < 0.3) c.fail(CODES[Math.floor(r() * CODES.length)] as string, 1 + Math.floor(r() * 100));
  // The latency buckets with counts: often the same as a recent point's, sometimes others, sometimes none.
  const pick = r();
  const set = pick < 0.6 && sets.length > 0 ? (sets.at(-1) as number) : pick < 0.8 ? Math.floor(r() * 2 ** LATENCY_BUCKETS) : 0;
  sets.push(set);
  for (let i = 0; i < LATENCY_BUCKETS; i++) if (Math.floor(set / 2 ** i) % 2 === 1) c.latency[i] = 1 + Math.floor(r() * 5_000);
  return c;
}

/** What the log should answer: the same reports added up per period, by plain Counters. */
function expected(reports: ReadonlyArray<readonly [number, Counters]>, fromIndex = Number.NEGATIVE_INFINITY): Array<[number, Counters]> {
  const sum = new Map<number, Counters>();
  for (const [i, c] of reports) {
    if (i < fromIndex) continue;
    const have = sum.get(i) ?? new Counters();
    have.add(c);
    sum.set(i, have);
  }
  return [...sum].sort((a, b) => a[0] - b[0]);
}

describe('point log encoding', () => {
  it('should read back every count it was given: zeros, the largest counts, negative differences, large jumps, merged and late reports, across drops', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = random(seed);
      const log = new PointLog(new CodeTable());
      const reports: Array<[number, Counters]> = [];
      const sets: number[] = [];
      let index = 1_000;
      let dropped = Number.NEGATIVE_INFINITY;
      for (let n = 0; n < 400; n++) {
        const step = r();
        // The next period, a gap, a jump of a year of minutes, the same period again (another worker), or a late one.
        if (step < 0.5) index += 1;
        else if (step < 0.65) index += 2 + Math.floor(r() * 100);
        else if (step < 0.7) index += 525_600;
        const at = step > 0.95 ? index - Math.floor(r() * 5) : index;
        if (at < dropped) continue;
        const c = countersOf(r, sets);
        log.add(at, c);
        reports.push([at, c]);
        if (n % 97 === 96) {
          dropped = index - Math.floor(r() * 50);
          log.dropBefore(dropped);
        }
        if (n % 13 === 0) expect([...log.points()]).toEqual(expected(reports, dropped));
      }
      expect([...log.points()]).toEqual(expected(reports, dropped));
      log.trim();
      expect([...log.points()]).toEqual(expected(reports, dropped));
    }
  });

  it('should write a busy period after one like it without its delivered difference or its latency bit set', () => {
    const log = new PointLog(new CodeTable());
    const busy = (matched: number): Counters => {
      const c = new Counters();
      c.matched = c.delivered = matched;
      c.deliveredBytes = matched * 400;
      c.latency[6] = matched - 2;
      c.latency[9] = 2;
      return c;
    };
    log.add(5, busy(300));
    log.trim();
    // The mask, the index (5), matched (2 bytes), bytes (120,000: 3), the bit set (576: 2), two counts (2 + 1).
    expect(log.byteLength).toBe(12);
    log.add(6, busy(200));
    log.trim();
    // The mask, matched, bytes (80,000: 3) and the two counts: 9 bytes more.
    expect(log.byteLength).toBe(21);
    // Merged into the last point, the second stays as short; a point dropped leaves the next one readable.
    log.add(6, busy(100));
    log.trim();
    expect(log.byteLength).toBe(21);
    log.dropBefore(6);
    expect([...log.points()]).toEqual([[6, ((c) => (c.add(busy(100)), c))(busy(200))]]);
  });

  it('should refuse to read a point cut short instead of reading past its end for ever', () => {
    const log = new PointLog(new CodeTable());
    const c = new Counters();
    c.matched = c.delivered = 300;
    c.deliveredBytes = 120_000;
    log.add(5, c);
    // The log's own bytes are private; cutting its used length stands for a bug that wrote a point short.
    (log as unknown as { used: number }).used -= 2;
    expect(() => [...log.points()]).toThrow(/ends inside a point/);
  });
});
