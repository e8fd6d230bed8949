// The word-at-a-time count of high-bit bytes against a byte loop, over arbitrary bytes, offsets and lengths.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { highByteCount } from '../../../src/records/utf8-range.js';

const byByte = (buf: Buffer, start: number, end: number): number => {
  let n = 0;
  for (let i = start; i < end; i++) if ((buf[i] as number) >= 0x80) n++;
  return n;
};

/** A buffer of `bytes` placed `offset` bytes into an ArrayBuffer of its own, `after` bytes left after it. */
function placed(bytes: Uint8Array, offset: number, after: number): Buffer {
  const ab = new ArrayBuffer(offset + bytes.length + after);
  const buf = Buffer.from(ab, offset, bytes.length);
  buf.set(bytes);
  return buf;
}

describe('highByteCount', () => {
  it('should count the bytes of 0x80 and above in any range of any buffer, wherever it starts in its ArrayBuffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(7), fc.nat(7), fc.nat(), fc.nat(), (bytes, offset, after, a, b) => {
        const buf = placed(bytes, offset, after);
        const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
        expect(highByteCount(buf, start, end)).toBe(byByte(buf, start, end));
      }),
      { numRuns: 2000 },
    );
  });

  it('should count right in slices of one ArrayBuffer and in other ArrayBuffers taken in turn', () => {
    const slab = Buffer.alloc(4096);
    for (let i = 0; i < slab.length; i++) slab[i] = (i * 37) % 3 === 0 ? 0x80 | (i & 0x7f) : i & 0x7f;
    const other = Buffer.from(slab.subarray(5, 2000));
    const views: Buffer[] = [slab.subarray(3, 1003), other, slab.subarray(1001, 4096), other.subarray(1, 900), slab];
    for (const v of views) expect(highByteCount(v, 0, v.length)).toBe(byByte(v, 0, v.length));
  });

  it('should count past the words of a view made before its ArrayBuffer grew', () => {
    // A resizable ArrayBuffer (ES2024, in Node 24; the project's type library is ES2023).
    const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer & { resize(length: number): void };
    const ab = new Resizable(64, { maxByteLength: 4096 });
    const small = Buffer.from(ab, 0, 64).fill(0x61);
    expect(highByteCount(small, 0, 64)).toBe(0);
    ab.resize(4096);
    const large = Buffer.from(ab, 0, 4096).fill(0xc3, 2000, 2100);
    expect(highByteCount(large, 1000, 4096)).toBe(100);
  });

  it('should count over 255 words of high bytes without a lane overflowing', () => {
    const buf = Buffer.alloc(8 * 1024, 0xff);
    expect(highByteCount(buf, 1, buf.length - 1)).toBe(buf.length - 2);
  });
});
