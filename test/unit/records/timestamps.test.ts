import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INT64_MAGNITUDE, formatMicros, formatMillis, parseRfc3339, rfc3339Micros, writeMicros, writeMillis } from '../../../src/records/timestamps.js';

describe('RFC 3339 timestamps', () => {
  it('should read a UTC time with microseconds', () => {
    expect(parseRfc3339('2024-05-01T12:00:00.123456Z')).toBe(Date.UTC(2024, 4, 1, 12) * 1000 + 123_456);
  });

  it('should apply a numeric offset and accept lowercase t and z', () => {
    expect(parseRfc3339('2024-05-01T14:30:00+02:30')).toBe(Date.UTC(2024, 4, 1, 12) * 1000);
    expect(parseRfc3339('2024-05-01t12:00:00z')).toBe(Date.UTC(2024, 4, 1, 12) * 1000);
    expect(parseRfc3339('2024-05-01T00:00:00-01:00')).toBe(Date.UTC(2024, 4, 1, 1) * 1000);
  });

  it('should truncate fractions finer than a microsecond', () => {
    expect(parseRfc3339('1970-01-01T00:00:00.000001999Z')).toBe(1);
    expect(parseRfc3339('1970-01-01T00:00:00.5Z')).toBe(500_000);
  });

  it('should refuse texts that are not RFC 3339 date-times', () => {
    for (const bad of [
      '2024-05-01',
      '2024-05-01 12:00:00Z',
      '2024-05-01T12:00:00',
      '2024-13-01T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T12:60:00Z',
      '2024-05-01T12:00:00+24:00',
      '2024-05-01T12:00:00.Z',
      '2024-05-01T12:00:00.1234567890Z',
      '1715000000',
    ]) {
      expect(parseRfc3339(bad), bad).toBeUndefined();
    }
  });

  it('should accept 29 February of a leap year only', () => {
    expect(parseRfc3339('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29) * 1000);
    expect(parseRfc3339('1900-02-29T00:00:00Z')).toBeUndefined();
    expect(parseRfc3339('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29) * 1000);
  });

  it('should refuse times that a JSON number cannot hold in microseconds', () => {
    expect(parseRfc3339('2300-01-01T00:00:00Z')).toBeUndefined();
    expect(parseRfc3339('1600-01-01T00:00:00Z')).toBeUndefined();
    expect(parseRfc3339('0050-01-01T00:00:00Z')).toBeUndefined();
  });

  it('should write UTC with six fraction digits, before and after the epoch', () => {
    expect(formatMicros(Date.UTC(2024, 4, 1, 12) * 1000 + 7)).toBe('2024-05-01T12:00:00.000007Z');
    expect(formatMicros(-1)).toBe('1969-12-31T23:59:59.999999Z');
    expect(formatMicros(Date.UTC(2000, 1, 29) * 1000)).toBe('2000-02-29T00:00:00.000000Z');
    expect(formatMicros(Date.UTC(1900, 2, 1) * 1000 - 1)).toBe('1900-02-28T23:59:59.999999Z');
    expect(formatMicros(Date.UTC(2101, 0, 1) * 1000 - 1)).toBe('2100-12-31T23:59:59.999999Z');
  });

  it('should write the same date and time as Date.toISOString, with three more fraction digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_INT64_MAGNITUDE, max: MAX_INT64_MAGNITUDE }), (micros) => {
        const text = formatMicros(micros);
        expect(text.slice(0, 23)).toBe(new Date(Math.floor(micros / 1000)).toISOString().slice(0, 23));
        expect(text.slice(23)).toBe(`${String(((micros % 1000) + 1000) % 1000).padStart(3, '0')}Z`);
      }),
      { numRuns: 2000 },
    );
  });

  it('should read back every timestamp it writes', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_INT64_MAGNITUDE, max: MAX_INT64_MAGNITUDE }), (micros) => {
        expect(parseRfc3339(formatMicros(micros))).toBe(micros);
      }),
      { numRuns: 2000 },
    );
  });

  it('should format and write a time in ms exactly as Date.toISOString does, over the whole range of Date', () => {
    const anyTime = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 });
    const recent = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) });
    fc.assert(
      fc.property(fc.oneof(anyTime, recent), (ms) => {
        expect(formatMillis(ms)).toBe(new Date(ms).toISOString());
        const out = Buffer.alloc(40);
        expect(out.toString('latin1', 3, writeMillis(out, 3, ms))).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const ms of [0, -1, 999, Date.UTC(1000, 0, 1), Date.UTC(1000, 0, 1) - 1, Date.UTC(2254, 11, 31, 23, 59, 59, 999)]) expect(formatMillis(ms)).toBe(new Date(ms).toISOString());
  });

  it('should write the bytes of formatMicros for any timestamp a record can hold', () => {
    const out = Buffer.alloc(64);
    fc.assert(
      fc.property(fc.integer({ min: -MAX_INT64_MAGNITUDE, max: MAX_INT64_MAGNITUDE }), fc.nat(8), (micros, at) => {
        // Neighbouring times too: the date of the last day written is reused.
        for (const t of [micros, micros + 1, micros + 3_600_000_000, micros - 1]) {
          if (Math.abs(t) > MAX_INT64_MAGNITUDE) continue;
          const end = writeMicros(out, at, t);
          expect(out.toString('latin1', at, end)).toBe(new Date(Math.floor(t / 1000)).toISOString().slice(0, 23) + String(((t % 1000) + 1000) % 1000).padStart(3, '0') + 'Z');
          expect(formatMicros(t)).toBe(out.toString('latin1', at, end));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('rfc3339Micros (the bytes of a JSON record)', () => {
  const d = (n: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '5', '9'), minLength: n, maxLength: n });
  const text = fc
    .tuple(
      d(4),
      d(2),
      d(2),
      fc.constantFrom('T', 't', ' '),
      d(2),
      d(2),
      d(2),
      fc.option(fc.string({ unit: fc.constantFrom('0', '4', '9'), maxLength: 11 }).map((f) => `.${f}`)),
      fc.oneof(fc.constantFrom('Z', 'z', '', 'ZZ', '+', 'Q'), fc.tuple(fc.constantFrom('+', '-'), d(2), fc.constantFrom(':', ''), d(2)).map((p) => p.join(''))),
    )
    .map(([y, mo, dd, t, h, mi, s, f, z]) => `${y}-${mo}-${dd}${t}${h}:${mi}:${s}${f ?? ''}${z}`);

  it('should read what parseRfc3339 reads, to the microsecond, and refuse what it refuses', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ maxLength: 30 })), fc.nat({ max: 3 }), (t, pad) => {
        const bytes = Buffer.from(`${'x'.repeat(pad)}${t}`, 'latin1');
        expect(rfc3339Micros(bytes, pad, bytes.length), t).toBe(parseRfc3339(t));
      }),
      { numRuns: 5000 },
    );
  });
});
