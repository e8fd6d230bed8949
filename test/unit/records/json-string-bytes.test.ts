// The word-at-a-time search for a JSON string's quote, backslash or control character against a byte loop,
// over arbitrary bytes, offsets and lengths, with nothing after the buffer in its ArrayBuffer to read.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { specialAt, wordView } from '../../../src/records/json-string-bytes.js';

const byByte = (buf: Buffer, i: number, len: number): number => {
  for (; i < len; i++) {
    const c = buf[i] as number;
    if (c === 0x22 || c === 0x5c || c < 0x20) return i;
  }
  return len;
};

/** A buffer of `bytes` placed `offset` bytes into an ArrayBuffer that ends where it ends: a read past its end throws. */
function placed(bytes: Uint8Array, offset: number): Buffer {
  const buf = Buffer.from(new ArrayBuffer(offset + bytes.length), offset, bytes.length);
  buf.set(bytes);
  return buf;
}

/** Bytes mostly plain, with the flagged ones and their neighbours (and the same with the high bit set) often. */
const jsonishByte = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).filter((c) => c !== 0x22 && c !== 0x5c) },
  { weight: 1, arbitrary: fc.constantFrom(0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0x9f, 0xa0, 0xa2, 0xdc, 0xff) },
);

describe('specialAt', () => {
  it('should find the first quote, backslash or control character as a byte loop does, wherever the buffer starts in its ArrayBuffer', () => {
    fc.assert(
      fc.property(fc.array(jsonishByte, { maxLength: 64 }), fc.nat(7), fc.nat(), fc.nat(), (bytes, offset, a, b) => {
        const buf = placed(Uint8Array.from(bytes), offset);
        const start = a % (bytes.length + 1);
        const len = start + (b % (bytes.length - start + 1));
        expect(specialAt(buf, wordView(buf), buf.byteOffset, start, len)).toBe(byByte(buf, start, len));
      }),
      { numRuns: 3000 },
    );
  });

  it('should find each flagged byte at every position of a run, and none of the bytes beside them', () => {
    for (const special of [0x00, 0x09, 0x1f, 0x22, 0x5c]) {
      for (const other of [0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0x9f, 0xa2, 0xdc, 0xff]) {
        for (let length = 1; length <= 12; length++) {
          for (let at = 0; at <= length; at++) {
            const bytes = new Uint8Array(length).fill(other);
            if (at < length) bytes[at] = special;
            for (let offset = 0; offset < 4; offset++) {
              const buf = placed(bytes, offset);
              expect(specialAt(buf, wordView(buf), offset, 0, length)).toBe(at);
            }
          }
        }
      }
    }
  });

  it('should read the views of one ArrayBuffer and of others taken in turn', () => {
    const slab = Buffer.alloc(256, 0x61);
    slab[100] = 0x22;
    slab[200] = 0x5c;
    const other = Buffer.from('abcdefgh"');
    const views: [Buffer, number][] = [
      [slab.subarray(3, 150), 97],
      [other, 8],
      [slab.subarray(101, 256), 99],
      [other.subarray(1, 5), 4],
      [slab, 100],
    ];
    for (const [v, want] of views) expect(specialAt(v, wordView(v), v.byteOffset, 0, v.length)).toBe(want);
  });
});
