import { describe, expect, it } from 'vitest';
import { Counters, LATENCY_BOUNDS_MS, latencyBucket } from '../../../../src/delivery/history/counters.js';
import { decodeRecord, encodeRecord, type HistoryRecord } from '../../../../src/delivery/history/history-record.js';
import { HistoryStore } from '../../../../src/delivery/history/history-store.js';
import { CodeTable, PointLog } from '../../../../src/delivery/history/point-log.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const timing = { minuteMs: MINUTE, minuteRetentionMs: DAY, hourRetentionMs: 30 * DAY };
const D = 'ed_01JD3000000000000000000001';
const S1 = 'esb_01JD3000000000000000000001';
const S2 = 'esb_01JD3000000000000000000002';

function counts(fields: Partial<Pick<Counters, 'matched' | 'parked' | 'redriven' | 'deadLettered'>> & { delivered?: Array<[bytes: number, latencyMs: number]>; failures?: Record<string, number> }): Counters {
  const c = new Counters();
  Object.assign(c, { matched: fields.matched ?? 0, parked: fields.parked ?? 0, redriven: fields.redriven ?? 0, deadLettered: fields.deadLettered ?? 0 });
  for (const [bytes, ms] of fields.delivered ?? []) c.deliveredOne(bytes, ms);
  for (const [code, n] of Object.entries(fields.failures ?? {})) c.fail(code, n);
  return c;
}

const record = (start: number, lengthMs: number, points: HistoryRecord['points'], worker = 'w1'): HistoryRecord => ({ worker, start, lengthMs, points });

describe('latency buckets', () => {
  it('should put a latency in the first bucket whose bound it does not pass, and answer a quantile as that bound', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(1)).toBe(0);
    expect(latencyBucket(1.5)).toBe(1);
    expect(latencyBucket(150)).toBe(LATENCY_BOUNDS_MS.indexOf(200));
    expect(latencyBucket(9e9)).toBe(LATENCY_BOUNDS_MS.length);
    const c = counts({ delivered: [...Array.from({ length: 98 }, (): [number, number] => [10, 40]), [10, 900], [10, 15_000]] });
    expect(c.quantile(0.5)).toBe(50);
    expect(c.quantile(0.99)).toBe(1_000);
    expect(c.quantile(1)).toBe(20_000);
    expect(new Counters().quantile(0.5)).toBeUndefined();
  });
});

describe('history record', () => {
  it('should read back what it wrote and refuse a point that is not one', () => {
    const c = counts({ matched: 3, delivered: [[120, 30], [80, 3_000]], failures: { DESTINATION_SERVER_ERROR: 2 }, parked: 1 });
    const back = decodeRecord(encodeRecord(record(5 * MINUTE, MINUTE, [{ destination: D, subscription: S1, counters: c }])));
    expect(back?.start).toBe(5 * MINUTE);
    expect(back?.points[0]?.counters).toEqual(c);
    const bad = JSON.parse(encodeRecord(record(0, MINUTE, [{ destination: D, subscription: S1, counters: c }])).toString()) as { points: Array<Record<string, unknown>> };
    (bad.points[0] as Record<string, unknown>).matched = -1;
    expect(decodeRecord(Buffer.from(JSON.stringify(bad)))).toBeUndefined();
    expect(decodeRecord(Buffer.from('{"v":2}'))).toBeUndefined();
    expect(decodeRecord(Buffer.from('not json'))).toBeUndefined();
  });
});

describe('point log', () => {
  it('should add reports of one period into one point, keep points in order when one comes late, and drop the oldest', () => {
    const log = new PointLog(new CodeTable());
    log.add(100, counts({ matched: 2, failures: { DESTINATION_TIMEOUT: 1 } }));
    log.add(100, counts({ matched: 3, delivered: [[1_000_000_000_000, 5]] }));
    log.add(103, counts({ deadLettered: 1 }));
    log.add(101, counts({ parked: 4 }));
    log.add(105, counts({ redriven: 7 }));
    const points = [...log.points()];
    expect(points.map(([i]) => i)).toEqual([100, 101, 103, 105]);
    expect(points[0]?.[1]).toEqual(counts({ matched: 5, failures: { DESTINATION_TIMEOUT: 1 }, delivered: [[1_000_000_000_000, 5]] }));
    expect([...log.points(101, 104)].map(([i]) => i)).toEqual([101, 103]);
    log.dropBefore(102);
    expect([...log.points()].map(([i, c]) => [i, c.deadLettered + c.redriven])).toEqual([[103, 1], [105, 7]]);
    // The last point is still merged into after a drop.
    log.add(105, counts({ redriven: 1 }));
    expect([...log.points()].at(-1)?.[1].redriven).toBe(8);
    log.dropBefore(200);
    expect(log.isEmpty).toBe(true);
  });
});

describe('history store', () => {
  const now = 100 * DAY + 30 * MINUTE;
  const thisHour = Math.floor(now / HOUR) * HOUR;

  it("should answer a destination's minutes over all its subscriptions and workers, leaving quiet minutes out", () => {
    const store = new HistoryStore(timing);
    const m = thisHour + 10 * MINUTE;
    store.apply(record(m, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 2, delivered: [[100, 20], [100, 20]] }) }]), now);
    store.apply(record(m, MINUTE, [{ destination: D, subscription: S2, counters: counts({ matched: 1, failures: { DESTINATION_SERVER_ERROR: 3 } }) }], 'w2'), now);
    store.apply(record(m + 2 * MINUTE, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 1, delivered: [[50, 4_000]] }) }]), now);
    const all = store.query(D, undefined, m, m + 5 * MINUTE, 'minute', now);
    expect(all.map((p) => [p.start - m, p.counters.matched, p.counters.delivered, p.counters.failedAttempts])).toEqual([
      [0, 3, 2, 3],
      [2 * MINUTE, 1, 1, 0],
    ]);
    expect(store.query(D, S2, m, m + 5 * MINUTE, 'minute', now).map((p) => p.counters.failures.get('DESTINATION_SERVER_ERROR'))).toEqual([3]);
    expect(store.query('ed_01JD3000000000000000000009', undefined, m, m + 5 * MINUTE, 'minute', now)).toEqual([]);
  });

  it('should add up an hour from its minutes while they are kept, and take older hours from the hour records', () => {
    const store = new HistoryStore(timing);
    const old = thisHour - 3 * DAY;
    store.apply(record(old, HOUR, [{ destination: D, subscription: S1, counters: counts({ matched: 500 }) }]), now);
    store.apply(record(thisHour - HOUR, HOUR, [{ destination: D, subscription: S1, counters: counts({ matched: 999 }) }]), now);
    store.apply(record(thisHour - HOUR + MINUTE, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 4 }) }]), now);
    store.apply(record(thisHour + MINUTE, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 6 }) }]), now);
    const hours = store.query(D, undefined, old, now, 'hour', now);
    // The hour before this one is made from its minutes (4), not its hour record (999), which only counts once its minutes are gone.
    expect(hours.map((p) => [p.start, p.counters.matched])).toEqual([
      [old, 500],
      [thisHour - HOUR, 4],
      [thisHour, 6],
    ]);
  });

  it('should leave out what is past its retention and drop the series of deleted destinations', () => {
    const store = new HistoryStore(timing);
    store.apply(record(now - DAY - 2 * MINUTE, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 1 }) }]), now);
    expect(store.size().series).toBe(0);
    store.apply(record(now - DAY + 10 * MINUTE, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 1 }) }]), now);
    store.apply(record(thisHour, MINUTE, [{ destination: D, subscription: S1, counters: counts({ matched: 2 }) }]), now);
    store.prune(now + 20 * MINUTE, () => true);
    expect(store.query(D, undefined, 0, now + HOUR, 'minute', now + 20 * MINUTE).map((p) => p.counters.matched)).toEqual([2]);
    store.prune(now + 20 * MINUTE, () => false);
    expect(store.size()).toEqual({ series: 0, bytes: 0 });
  });
});
