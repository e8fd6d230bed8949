import { describe, expect, it } from 'vitest';
import { CHECK_NAME_START, ObjectBatches, expandPrefix, objectName } from './object-batches.js';

describe('object names', () => {
  it('should expand the placeholders in UTC from the time the object is written', () => {
    const at = new Date(Date.UTC(2026, 0, 5, 7, 8, 9, 10));
    const values = { accountId: 'acct_1', eventType: 'http_request_complete.v0', subscriptionId: 'esb_2sub' };
    expect(expandPrefix('a/{account_id}/{event_type}/{subscription_id}/dt={date}/h={hour}/{date}', at, values)).toBe(
      'a/acct_1/http_request_complete.v0/esb_2sub/dt=2026-01-05/h=07/2026-01-05',
    );
  });

  it('should name objects by their time to the millisecond and 64 random bits, so names sort by time and never repeat', () => {
    const at = new Date(Date.UTC(2026, 10, 26, 10, 15, 2, 123));
    expect(objectName(at, '.ndjson.gz')).toMatch(/^20261126T101502123Z-[0-9a-f]{16}\.ndjson\.gz$/);
    const names = Array.from({ length: 10_000 }, () => objectName(at, ''));
    expect(new Set(names).size).toBe(names.length);
    const later = objectName(new Date(at.getTime() + 1), '');
    expect(names.every((n) => n < later)).toBe(true);
  });

  it("should name the check object under the prefix so that query engines reading the prefix skip it (a name and folders beginning with _)", () => {
    const layout = { prefix: 'logs/{event_type}/dt={date}/', accountId: 'acct_1', outputType: 'ndjson', compression: 'gzip', maxUploadBytes: 1024, maxUploadRecords: 1, maxUploadIntervalSeconds: 1 } as const;
    const key = new ObjectBatches(layout, () => Promise.resolve()).checkKey(new Date(Date.UTC(2026, 10, 26, 10, 15, 2, 123)));
    expect(key).toMatch(/^logs\/_edge_events_check\/dt=2026-11-26\/_edge-events-check-20261126T101502123Z-[0-9a-f]{16}$/);
    // Athena, Hive and Spark leave out files whose names begin with "_" or ".".
    expect(key.split('/').pop()!.startsWith(CHECK_NAME_START)).toBe(true);
    expect(CHECK_NAME_START[0]).toBe('_');
  });
});
