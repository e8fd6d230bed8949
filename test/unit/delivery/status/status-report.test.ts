import { describe, expect, it } from 'vitest';
import { decodeReport, encodeReport, parseReportKey, reportKey, type StatusReport } from '../../../../src/delivery/status/status-report.js';

const REPORT: StatusReport = {
  destination: 'ed_01JD3Z8Q4T2R7M5N6P9K0W1X2Y',
  worker: 'host-1234-a1b2c3',
  state: 'parked',
  since: 1_700_000_000_000,
  lastAttemptAt: 1_700_000_001_000,
  lastDeliveredAt: null,
  lastError: { code: 'DESTINATION_UNREACHABLE', message: 'refused', at: 1_700_000_001_000 },
  parked: { events: 12, checkedAt: 1_700_000_002_000 },
  oldestParkedAt: 1_700_000_000_500,
  stalledSince: 1_699_999_000_000,
  reportedAt: 1_700_000_002_500,
  stopped: false,
};

describe('status reports on the status topic', () => {
  it('should read back every field of a report it wrote, and its key', () => {
    expect(decodeReport(encodeReport(REPORT))).toEqual(REPORT);
    expect(decodeReport(encodeReport({ ...REPORT, lastError: null, parked: null, oldestParkedAt: null, stopped: true }))).toMatchObject({ lastError: null, parked: null, stopped: true });
    // A report of a worker from before stalled_since: nothing stalled that it says.
    const { stalled_since: _, ...older } = JSON.parse(encodeReport(REPORT).toString()) as Record<string, unknown>;
    expect(decodeReport(Buffer.from(JSON.stringify(older)))?.stalledSince).toBeNull();
    expect(parseReportKey(reportKey(REPORT.destination, REPORT.worker))).toEqual({ destination: REPORT.destination, worker: REPORT.worker });
  });

  it('should skip a value it cannot read rather than guess', () => {
    const json = JSON.parse(encodeReport(REPORT).toString()) as Record<string, unknown>;
    const bad = [
      'not json',
      JSON.stringify({ ...json, v: 2 }),
      JSON.stringify({ ...json, state: 'sleeping' }),
      JSON.stringify({ ...json, since: -1 }),
      JSON.stringify({ ...json, last_error: { code: 'X' } }),
      JSON.stringify({ ...json, parked: { events: 1.5, checked_at: 1 } }),
      JSON.stringify({ ...json, stopped: 'no' }),
      JSON.stringify({ ...json, stalled_since: 'yesterday' }),
      'null',
    ];
    for (const text of bad) expect(decodeReport(Buffer.from(text)), text).toBeUndefined();
    expect(parseReportKey('no-slash')).toBeUndefined();
    expect(parseReportKey('/w')).toBeUndefined();
    expect(parseReportKey('ed_1/')).toBeUndefined();
  });
});
