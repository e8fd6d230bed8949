import { describe, expect, it } from 'vitest';
import { aggregateStatus, statusTiming } from '../../../../src/delivery/status/status-aggregate.js';
import type { StatusReport } from '../../../../src/delivery/status/status-report.js';

const NOW = 1_800_000_000_000;
// Reports every second: a report expires after 3 s, an attempt counts for the state for 4 s.
const TIMING = statusTiming(1_000);

function report(worker: string, parts: Partial<StatusReport>): StatusReport {
  return {
    destination: 'ed_1',
    worker,
    state: 'ok',
    since: NOW - 60_000,
    lastAttemptAt: NOW - 100,
    lastDeliveredAt: null,
    lastError: null,
    parked: null,
    oldestParkedAt: null,
    stalledSince: null,
    reportedAt: NOW - 100,
    stopped: false,
    ...parts,
  };
}

const refused = (at: number) => ({ code: 'DESTINATION_UNREACHABLE', message: 'refused', at });

describe('destination status over workers', () => {
  it('should be unknown with no report, and with reports only of workers that have not tried the destination', () => {
    expect(aggregateStatus([], NOW, TIMING)).toEqual({ state: 'unknown', lastDeliveredAt: undefined, lastError: undefined, parkedEvents: 0, oldestParkedAt: undefined, stalledSince: undefined });
    expect(aggregateStatus([report('a', { state: 'unknown', lastAttemptAt: null })], NOW, TIMING).state).toBe('unknown');
  });

  it('should take the worst state among workers that tried it recently, with the latest delivery and error of any', () => {
    const a = report('a', { state: 'ok', lastDeliveredAt: NOW - 200 });
    const b = report('b', { state: 'parked', lastAttemptAt: NOW - 1_500, lastError: refused(NOW - 1_500) });
    const c = report('c', { state: 'failing', lastAttemptAt: NOW - 300, lastError: refused(NOW - 300) });
    expect(aggregateStatus([a, b, c], NOW, TIMING)).toMatchObject({ state: 'parked', lastDeliveredAt: NOW - 200, lastError: refused(NOW - 300) });
    expect(aggregateStatus([a, c], NOW, TIMING).state).toBe('failing');
  });

  it('should let a worker whose last attempt is old no longer decide the state while another tries it', () => {
    const stale = report('a', { state: 'parked', lastAttemptAt: NOW - 5_000, lastError: refused(NOW - 5_000) });
    const fresh = report('b', { state: 'ok', lastAttemptAt: NOW - 100, lastDeliveredAt: NOW - 100 });
    expect(aggregateStatus([stale, fresh], NOW, TIMING)).toMatchObject({ state: 'ok', lastError: refused(NOW - 5_000) });
  });

  it('should take the state of the last attempt when no worker tried it recently', () => {
    const older = report('a', { state: 'ok', lastAttemptAt: NOW - 60_000, lastDeliveredAt: NOW - 60_000 });
    const newer = report('b', { state: 'failing', lastAttemptAt: NOW - 30_000, lastError: refused(NOW - 30_000) });
    expect(aggregateStatus([older, newer], NOW, TIMING).state).toBe('failing');
  });

  it('should keep the history of workers that stopped or stopped reporting, without their state', () => {
    const expired = report('a', { state: 'parked', reportedAt: NOW - 3_500, lastError: refused(NOW - 3_600) });
    const stopped = report('b', { state: 'failing', stopped: true, lastDeliveredAt: NOW - 2_000 });
    expect(aggregateStatus([expired, stopped], NOW, TIMING)).toEqual({
      state: 'unknown',
      lastDeliveredAt: NOW - 2_000,
      lastError: refused(NOW - 3_600),
      parkedEvents: 0,
      oldestParkedAt: undefined,
    });
    expect(aggregateStatus([expired, report('c', {})], NOW, TIMING).state).toBe('ok');
  });

  it("should count the parked events of the latest measurement, and the oldest parked delivery any running worker knows of", () => {
    const measuredEarlier = report('a', { parked: { events: 40, checkedAt: NOW - 2_000 }, oldestParkedAt: NOW - 9_000 });
    const measuredLater = report('b', { parked: { events: 25, checkedAt: NOW - 500 }, oldestParkedAt: NOW - 7_000 });
    const parking = report('c', { oldestParkedAt: NOW - 8_000 });
    expect(aggregateStatus([measuredEarlier, measuredLater, parking], NOW, TIMING)).toMatchObject({ parkedEvents: 25, oldestParkedAt: NOW - 9_000 });
    // Drained: no age is shown, whatever a worker still remembers.
    const drained = report('b', { parked: { events: 0, checkedAt: NOW - 100 } });
    expect(aggregateStatus([drained, parking], NOW, TIMING)).toMatchObject({ parkedEvents: 0, oldestParkedAt: undefined, stalledSince: undefined });
  });

  it('should say a record waits for the destination past the bound since the earliest a running worker reports', () => {
    const reports = [report('w1', { stalledSince: NOW - 400_000 }), report('w2', { stalledSince: NOW - 500_000 }), report('w3', {})];
    expect(aggregateStatus(reports, NOW, TIMING).stalledSince).toBe(NOW - 500_000);
    // A stopped worker's stall is history: its records are read again by the partition's next owner.
    expect(aggregateStatus([report('w1', { stalledSince: NOW - 400_000, stopped: true })], NOW, TIMING).stalledSince).toBeUndefined();
  });
});
