// latin1Text (latin1-text.ts) makes the same string as Buffer's latin1Slice, at every length, for any bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { latin1Text } from '../../../src/records/latin1-text.js';

const latin1Slice = (buf: Buffer, a: number, e: number): string => (buf as unknown as { latin1Slice(a: number, e: number): string }).latin1Slice(a, e);

describe('latin1Text', () => {
  it('should make the string latin1Slice makes, for runs of 0 to 40 bytes anywhere in a buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), fc.nat(60), fc.nat(40), (bytes, from, length) => {
        const buf = Buffer.from(bytes);
        const a = Math.min(from, buf.length);
        const e = Math.min(a + length, buf.length);
        expect(latin1Text(buf, a, e)).toBe(latin1Slice(buf, a, e));
      }),
      { numRuns: 5_000 },
    );
  });

  it('should read an address of 7 to 15 bytes as text', () => {
    const buf = Buffer.from('\u0006203.0.113.255\u0000', 'latin1');
    expect(latin1Text(buf, 1, 14)).toBe('203.0.113.255');
    expect(latin1Text(buf, 1, 8)).toBe('203.0.1');
  });
});
