// The cache of recent strings gives the text of the bytes, whatever it held before, and refuses what is not UTF-8.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/records/errors.js';
import { cachedString, newStringCache } from '../../../src/records/string-cache.js';

describe('cachedString', () => {
  it('should give the UTF-8 text of any bytes, from a cache of any history, or refuse them as invalid_utf8', () => {
    const cache = newStringCache();
    // A small pool, so that values repeat; a few high bytes, so that some are not ASCII and some not UTF-8.
    const value = fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b.map((x) => (x % 7 === 0 ? 0xc3 + (x & 1) * 0x3c : 0x61 + (x % 5)))));
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.nat(7)), { minLength: 1, maxLength: 40 }), (values) => {
        for (const [bytes, offset] of values) {
          const slab = Buffer.alloc(offset + bytes.length + 3, 0x7a);
          bytes.copy(slab, offset);
          const read = (): string => cachedString(slab, offset, offset + bytes.length, 'conn.server_name', cache);
          if (isUtf8(bytes)) expect(read()).toBe(bytes.toString('utf8'));
          else expect(read).toThrow(new DecodeError('invalid_utf8', 'conn.server_name is not valid UTF-8.'));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('should give the text of a value seen before again, and tell apart values that share a slot', () => {
    const cache = newStringCache();
    const at = (text: string): string => cachedString(Buffer.from(`#${text}#`), 1, 1 + text.length, 'conn.server_ip', cache);
    const first = at('api.example.com');
    expect(at('api.example.com')).toBe(first);
    // More values than slots: every answer is still its own text.
    for (let i = 0; i < 10_000; i++) expect(at(`h${i}.example.com`)).toBe(`h${i}.example.com`);
  });
});
