import avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_WRITABLE_LONG } from '../../../src/records/avro-record.js';
import { compileScanner, readLongAt } from '../../../src/records/avro-scan.js';
import { DecodeError } from '../../../src/records/errors.js';
import { MAX_INT64_MAGNITUDE } from '../../../src/records/timestamps.js';

/** The Avro zig-zag varint of any int64, written with BigInt so that it is exact everywhere. */
function zigzag(v: bigint): Buffer {
  let n = v >= 0n ? v << 1n : (-v << 1n) - 1n;
  const bytes: number[] = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) b |= 0x80;
    bytes.push(b);
  } while (n > 0n);
  return Buffer.from(bytes);
}

function codeOf(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (err) {
    return err instanceof DecodeError ? err.code : 'other';
  }
}

describe('the Avro scanner', () => {
  it('should read every long that avsc writes exactly, and stop where avsc stops', () => {
    const longType = avro.Type.forSchema('long');
    // avsc writes exactly from -2^52 up (avro-record.ts, MIN_WRITABLE_LONG); below, the BigInt test covers reading.
    fc.assert(
      fc.property(fc.integer({ min: MIN_WRITABLE_LONG, max: MAX_INT64_MAGNITUDE }), (v) => {
        const buf = longType.toBuffer(v);
        expect(readLongAt(buf, 0)).toEqual({ value: v, end: buf.length });
      }),
      { numRuns: 3000 },
    );
  });

  it('should read a long exactly over the whole range it accepts', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_INT64_MAGNITUDE, max: MAX_INT64_MAGNITUDE }), (v) => {
        const buf = zigzag(BigInt(v));
        expect(readLongAt(buf, 0)).toEqual({ value: v, end: buf.length });
      }),
      { numRuns: 3000 },
    );
  });

  it('should accept a long exactly when it is within 2^53 - 2 of zero, over the whole int64 range', () => {
    const scan = compileScanner('long');
    const near = fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n });
    const any = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(
      fc.property(fc.oneof(near, any), (v) => {
        const inRange = v >= -BigInt(MAX_INT64_MAGNITUDE) && v <= BigInt(MAX_INT64_MAGNITUDE);
        expect(codeOf(() => scan(zigzag(v), 0))).toBe(inRange ? 'ok' : 'schema_violation');
      }),
      { numRuns: 3000 },
    );
    expect(codeOf(() => scan(zigzag(BigInt(MAX_INT64_MAGNITUDE)), 0))).toBe('ok');
    expect(codeOf(() => scan(zigzag(BigInt(MAX_INT64_MAGNITUDE) + 1n), 0))).toBe('schema_violation');
    expect(codeOf(() => scan(zigzag(-BigInt(MAX_INT64_MAGNITUDE) - 1n), 0))).toBe('schema_violation');
  });

  it('should accept an int exactly when it is in the int32 range', () => {
    const scan = compileScanner('int');
    for (const [v, code] of [
      [2n ** 31n - 1n, 'ok'],
      [-(2n ** 31n), 'ok'],
      [2n ** 31n, 'schema_violation'],
      [-(2n ** 31n) - 1n, 'schema_violation'],
    ] as const) {
      expect(codeOf(() => scan(zigzag(v), 0)), String(v)).toBe(code);
    }
  });

  it('should refuse a varint longer than ten bytes', () => {
    expect(codeOf(() => readLongAt(Buffer.from([...Array(10).fill(0x80), 0x01]), 0))).toBe('malformed_avro');
  });

  it('should refuse a negative string length', () => {
    expect(codeOf(() => compileScanner('string')(zigzag(-1n), 0))).toBe('malformed_avro');
  });

  it('should read a map written in blocks with negative counts and byte sizes', () => {
    const scan = compileScanner({ type: 'map', values: 'string' });
    // One block of -1 entries (1 entry, followed by its byte size 4): "a" -> "b", then the end block.
    const buf = Buffer.concat([zigzag(-1n), zigzag(4n), zigzag(1n), Buffer.from('a'), zigzag(1n), Buffer.from('b'), zigzag(0n)]);
    expect(scan(buf, 0)).toBe(buf.length);
  });
});
