import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OffsetTracker, type TrackedRecord } from '../../../src/delivery/offset-tracker.js';
import { item } from './fakes.js';

const at = (topic: string, partition: number, offset: number, reading = 1): TrackedRecord => ({ topic, partition, offset, reading });

describe('offset tracker', () => {
  it('should commit the next offset to read once every delivery of a record is settled', () => {
    const t = new OffsetTracker();
    const r = at('a', 0, 5);
    t.track(r, 2);
    expect(t.committable('a', 0)).toBe(5);
    t.settle(r);
    expect(t.committable('a', 0)).toBe(5);
    t.settle(r);
    expect(t.committable('a', 0)).toBe(6);
  });

  it('should let records without deliveries pass at once and stop at the first unsettled one', () => {
    const t = new OffsetTracker();
    t.track(at('a', 0, 0), 0);
    expect(t.committable('a', 0)).toBe(1);
    const r1 = at('a', 0, 1);
    const r7 = at('a', 0, 7);
    t.track(r1, 1);
    t.track(at('a', 0, 4), 0);
    t.track(r7, 1);
    t.settle(r7);
    expect(t.committable('a', 0)).toBe(1);
    t.settle(r1);
    expect(t.committable('a', 0)).toBe(8);
    expect(t.pending('a', 0)).toBe(0);
    // Records read without deliveries are passed in one call.
    t.advance('a', 0, 12);
    expect(t.committable('a', 0)).toBe(13);
  });

  it('should keep partitions and topics apart', () => {
    const t = new OffsetTracker();
    const a1 = at('a', 1, 20);
    t.track(at('a', 0, 10), 1);
    t.track(a1, 1);
    t.track(at('b', 0, 30), 0);
    t.settle(a1);
    expect(t.committableOffsets()).toEqual([
      { topic: 'a', partition: 0, offset: 10 },
      { topic: 'a', partition: 1, offset: 21 },
      { topic: 'b', partition: 0, offset: 31 },
    ]);
  });

  it('should refuse an offset that does not increase within a reading, and accept it again after a reset', () => {
    const t = new OffsetTracker();
    const r = at('a', 0, 10);
    t.track(r, 1);
    expect(() => t.track(at('a', 0, 10), 1)).toThrow(RangeError);
    t.reset('a', 0);
    expect(t.committable('a', 0)).toBeUndefined();
    expect(t.settle(r)).toBe(false);
    t.track(at('a', 0, 3), 0);
    expect(t.committable('a', 0)).toBe(4);
  });

  it('should settle by the record, not by the object its deliveries carry', () => {
    // Issue 22, finding 1: the audit route made a source object per timestamp format; any equal one settles.
    const t = new OffsetTracker();
    t.begin('a', 0, 1, 10);
    t.track(at('a', 0, 10), 3);
    expect([t.settle(at('a', 0, 10)), t.settle({ ...at('a', 0, 10) }), t.settle(at('a', 0, 10))]).toEqual([true, true, true]);
    expect(t.committable('a', 0)).toBe(11);
  });

  it('should not count a delivery from before a reset toward the same record read again', () => {
    const t = new OffsetTracker();
    t.begin('a', 0, 1, 10);
    t.track(at('a', 0, 10, 1), 2);
    t.resetAll();
    t.begin('a', 0, 2, 10);
    t.track(at('a', 0, 10, 2), 2);
    // The old deliveries settle late: the record read again still waits for both of its own.
    expect([t.settle(at('a', 0, 10, 1)), t.settle(at('a', 0, 10, 1))]).toEqual([false, false]);
    expect(t.committable('a', 0)).toBe(10);
    t.settle(at('a', 0, 10, 2));
    t.settle(at('a', 0, 10, 2));
    expect(t.committable('a', 0)).toBe(11);
  });

  it('should start the bookkeeping afresh at a batch of a new reading, whatever its offsets', () => {
    // Issue 22, finding 2: the stream restarted at the committed offset E with record E still unsettled.
    const t = new OffsetTracker();
    t.begin('a', 0, 1, 5);
    for (let o = 5; o <= 9; o++) t.track(at('a', 0, o, 1), 1);
    expect(t.committable('a', 0)).toBe(5);
    t.begin('a', 0, 2, 5);
    expect(t.committable('a', 0)).toBeUndefined();
    t.track(at('a', 0, 5, 2), 1);
    expect(t.settle(at('a', 0, 5, 1))).toBe(false);
    expect(t.settle(at('a', 0, 5, 2))).toBe(true);
    t.advance('a', 0, 9);
    expect(t.committable('a', 0)).toBe(10);
  });

  it('should start afresh at a batch that begins before the committable offset (a seek) and keep going within a reading', () => {
    const t = new OffsetTracker();
    t.begin('a', 0, 1, 0);
    t.track(at('a', 0, 0), 0);
    t.advance('a', 0, 9);
    t.begin('a', 0, 1, 10);
    expect(t.committable('a', 0)).toBe(10);
    t.begin('a', 0, 1, 4);
    expect(t.committable('a', 0)).toBeUndefined();
  });

  it('should tell the oldest unsettled record with its deliveries and when its batch began', () => {
    const t = new OffsetTracker();
    const before = Date.now();
    t.begin('a', 0, 1, 3);
    const deliveries = [{ destinationId: 'ed_1', item: item(20, at('a', 0, 3)) }, { destinationId: 'ed_2', item: item(20, at('a', 0, 3)) }];
    t.track(at('a', 0, 3), 2, deliveries);
    t.track(at('a', 0, 4), 1);
    const oldest = t.oldestUnsettled('a', 0);
    expect(oldest).toMatchObject({ offset: 3, reading: 1, pending: 2 });
    expect(oldest?.deliveries).toBe(deliveries);
    expect(oldest?.at).toBeGreaterThanOrEqual(before);
    t.settle(at('a', 0, 3));
    t.settle(at('a', 0, 3));
    expect(t.oldestUnsettled('a', 0)?.offset).toBe(4);
    t.settle(at('a', 0, 4));
    expect(t.oldestUnsettled('a', 0)).toBeUndefined();
  });

  it('should never commit past an unsettled record and reach the end when all settle, in any settle order', () => {
    const records = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 3 }), pending: fc.integer({ min: 0, max: 3 }) }), {
      minLength: 1,
      maxLength: 60,
    });
    const scenario = records.chain((recs) => {
      const settles = recs.flatMap((r, i) => Array.from({ length: r.pending }, () => i));
      return fc.tuple(fc.constant(recs), fc.shuffledSubarray(settles, { minLength: settles.length, maxLength: settles.length }));
    });
    fc.assert(
      fc.property(scenario, ([recs, order]) => {
        const t = new OffsetTracker();
        const sources: TrackedRecord[] = [];
        const remaining: number[] = [];
        let offset = -1;
        for (const r of recs) {
          offset += r.gap;
          const source = at('t', 0, offset);
          sources.push(source);
          remaining.push(r.pending);
          t.track(source, r.pending);
        }
        const last = offset;
        for (const i of order) {
          t.settle(sources[i] as TrackedRecord);
          remaining[i] = (remaining[i] as number) - 1;
          const committed = t.committable('t', 0) as number;
          const firstUnsettled = remaining.findIndex((n) => n > 0);
          // Never past an unsettled record, and never behind a settled prefix.
          if (firstUnsettled >= 0) expect(committed).toBe(sources[firstUnsettled]?.offset);
          else expect(committed).toBe(last + 1);
        }
        expect(t.committable('t', 0)).toBe(last + 1);
        expect(t.pending('t', 0)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('should stay fast over a long run of records settled slightly out of order', () => {
    const t = new OffsetTracker();
    const n = 200_000;
    const started = performance.now();
    let previous = at('t', 0, -1);
    for (let o = 0; o < n; o++) {
      const source = at('t', 0, o);
      t.track(source, 1);
      if (o % 2 === 1) {
        t.settle(source);
        t.settle(previous);
      }
      previous = source;
    }
    expect(t.committable('t', 0)).toBe(n);
    // O(1) amortised: a quadratic scan would take many seconds here.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
