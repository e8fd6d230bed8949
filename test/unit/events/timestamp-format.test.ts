import { describe, expect, it } from 'vitest';
import { formatEventTime, formatObjectTimes, formatTimestampValue } from '../../../src/events/timestamp-format.js';

describe('timestamp formats', () => {
  it('should write the event time as RFC 3339 text, seconds with a fraction, whole milliseconds, or nanoseconds as a string', () => {
    const ms = Date.UTC(2026, 10, 24, 3, 24, 53, 744);
    expect(formatEventTime(ms, 'rfc3339')).toBe('2026-11-24T03:24:53.744Z');
    expect(formatEventTime(ms, 'unix')).toBe(1795490693.744);
    expect(formatEventTime(ms, 'unixmilli')).toBe(1795490693744);
    expect(formatEventTime(ms, 'unixnano')).toBe('1795490693744000000');
  });

  it('should keep microseconds of a field in unix and unixnano and drop them in unixmilli', () => {
    const text = '2026-11-24T03:24:53.744123Z';
    expect(formatTimestampValue(text, 'rfc3339')).toBe(text);
    expect(formatTimestampValue(text, 'unix')).toBe(1795490693.744123);
    expect(formatTimestampValue(text, 'unixmilli')).toBe(1795490693744);
    expect(formatTimestampValue(text, 'unixnano')).toBe('1795490693744123000');
  });

  it('should rewrite only the timestamp fields of an object and leave the object passed in unchanged', () => {
    const object = { conn: { start_ts: '1970-01-01T00:00:01.500000Z', end_ts: null, bytes_in: 7, client_ip: '10.0.0.1' } };
    const out = formatObjectTimes('tcp_connection_closed.v0', object, 'unixmilli');
    expect(out).toEqual({ conn: { start_ts: 1500, end_ts: null, bytes_in: 7, client_ip: '10.0.0.1' } });
    expect(object.conn.start_ts).toBe('1970-01-01T00:00:01.500000Z');
    expect(formatObjectTimes('tcp_connection_closed.v0', { conn: { bytes_in: 1 } }, 'unix')).toEqual({ conn: { bytes_in: 1 } });
  });
});
