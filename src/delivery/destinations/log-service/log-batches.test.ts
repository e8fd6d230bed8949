import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../contract.js';
import { eventTimestamp } from '../../event-time.js';
import { MAX_LOG_REQUEST_SPAN_MS, logRequests, rejectedIndexes } from './log-batches.js';

const H = 3_600_000;

function at(ms: number, id: string): DeliveryItem {
  return { eventId: id, payload: Buffer.from(JSON.stringify({ event_id: id, event_timestamp: new Date(ms).toISOString() })) };
}

describe('log requests', () => {
  it('should read the event time from the envelope, or the payload, or fall back to now', () => {
    const t = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    expect(eventTimestamp(at(t, 'a'), 1)).toBe(t);
    expect(eventTimestamp({ eventId: 'b', payload: Buffer.from('not json') }, 42)).toBe(42);
    expect(eventTimestamp({ eventId: 'c', payload: Buffer.from('{"event_timestamp":"yesterday"}') }, 42)).toBe(42);
  });

  it('should sort by time, keep equal times in order, and split where the span reaches 24 hours', () => {
    const base = Date.UTC(2026, 0, 10);
    const items = [at(base + 30 * H, 'late'), at(base, 'first'), at(base + 5 * H, 'mid1'), at(base + 5 * H, 'mid2'), at(base + 24 * H, 'edge')];
    const requests = logRequests(items, 0).map((r) => r.map((t) => t.item.eventId));
    expect(requests).toEqual([['first', 'mid1', 'mid2'], ['edge', 'late']]);
  });

  it('should always give chronological requests spanning under 24 hours that hold every item once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 * H }), { maxLength: 200 }), (times) => {
        const items = times.map((t, i) => at(Date.UTC(2026, 0, 1) + t, `e${i}`));
        const requests = logRequests(items, 0);
        const flat = requests.flat();
        expect(flat.map((t) => t.item).sort((a, b) => a.eventId.localeCompare(b.eventId))).toEqual([...items].sort((a, b) => a.eventId.localeCompare(b.eventId)));
        for (let i = 1; i < flat.length; i++) expect(flat[i]!.timestamp).toBeGreaterThanOrEqual(flat[i - 1]!.timestamp);
        for (const r of requests) expect(r[r.length - 1]!.timestamp - r[0]!.timestamp).toBeLessThan(MAX_LOG_REQUEST_SPAN_MS);
        // Splits happen only where needed: two neighbouring requests could not have been one.
        for (let i = 1; i < requests.length; i++) {
          const prev = requests[i - 1]!;
          expect(requests[i]![0]!.timestamp - prev[0]!.timestamp).toBeGreaterThanOrEqual(MAX_LOG_REQUEST_SPAN_MS);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('should mark refused events, taking the end indexes as inclusive', () => {
    expect([...rejectedIndexes({ tooOldLogEventEndIndex: 1, tooNewLogEventStartIndex: 4 }, 6).entries()]).toEqual([
      [4, 'more than 2 hours in the future'],
      [5, 'more than 2 hours in the future'],
      [0, 'more than 14 days old, or older than the log group retention'],
      [1, 'more than 14 days old, or older than the log group retention'],
    ]);
    expect(rejectedIndexes({ expiredLogEventEndIndex: 0 }, 3).get(0)).toBe('older than the log group retention');
    expect(rejectedIndexes(undefined, 3).size).toBe(0);
  });
});
