// Finding where a JSON string's plain run of bytes ends, four bytes at a time: the scan (json-scan.ts)
// looks at every byte of a string only to find its closing quote, and most strings hold no backslash and no
// control character (bench/results/PROFILE.md, "Issue 25, second pass").
//
// A record value handed over by a Kafka client is a slice of the fetch response it was read from, one
// ArrayBuffer for many records, so the DataView of the last ArrayBuffer seen is kept and reused, as
// utf8-range.ts keeps its word view. DataView reads need no alignment; every read stays inside the buffer.

let viewed: ArrayBufferLike | undefined;
let view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/** The DataView of `buf`'s ArrayBuffer; `buf[i]` is its byte `buf.byteOffset + i`. */
export function wordView(buf: Buffer): DataView<ArrayBufferLike> {
  const ab = buf.buffer;
  if (ab !== viewed) {
    view = new DataView(ab);
    viewed = ab;
  }
  return view;
}

/**
 * Code that moves `i` (a variable) over the whole words of the bytes [i, len) that hold no quote, backslash
 * or control character, to the first such byte of the word that holds one; it stops with fewer than four
 * bytes left (i + 4 > len) otherwise, those bytes unread. `view` is wordView of the buffer and `base` its
 * byteOffset. The scan writes it inline into its string reads (a call a string cost 5-7% of the scan).
 */
export function plainWordsCode(view: string, base: string, i: string, len: string): string {
  // The high bit of each byte that is 0 after XOR with a quote or a backslash, or below 0x20: exact for the
  // lowest such byte (a borrow reaches only the bytes above it), which the lowest set bit names.
  return [
    `for (; ${i} + 4 <= ${len}; ${i} += 4) {`,
    `  const x = ${view}.getInt32(${base} + ${i}, true); const q = x ^ 0x22222222; const s = x ^ 0x5c5c5c5c;`,
    `  const t = (((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s) | ((x - 0x20202020) & ~x)) & 0x80808080;`,
    `  if (t !== 0) { ${i} += (31 - Math.clz32(t & -t)) >> 3; break; }`,
    `}`,
  ].join('\n');
}

/**
 * The position of the first byte at or after i that is a quote, a backslash or a control character, or
 * `len` if there is none before it. `view` is wordView(buf) and `base` buf.byteOffset; `len` at most buf.length.
 */
export const specialAt = new Function(
  'buf',
  'view',
  'base',
  'i',
  'len',
  [plainWordsCode('view', 'base', 'i', 'len'), 'for (; i < len; i++) { const c = buf[i]; if (c === 0x22 || c === 0x5c || c < 0x20) return i; }', 'return len;'].join('\n'),
) as (buf: Buffer, view: DataView<ArrayBufferLike>, base: number, i: number, len: number) => number;
