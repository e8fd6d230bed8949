// Counting the bytes of a buffer range that have their high bit set, a 32-bit word at a time: the
// cheap part of checking that every string of a record is ASCII (avro-codegen.ts, compileValidatorCode).
//
// A record value handed over by a Kafka client is a slice of the fetch response it was read from, one
// ArrayBuffer for many records, so the word view of the last ArrayBuffer seen is kept and reused: a
// view made per record or per string costs more than the loop saves (bench/results/PROFILE.md, "The
// route's floor"). The view keeps that one ArrayBuffer alive until another is counted.

// The word view of the ArrayBuffer last counted in.
let viewed: ArrayBufferLike | undefined;
let words: Int32Array<ArrayBufferLike> = new Int32Array(0);

/** Ranges shorter than this are counted byte by byte: setting up the word loop costs more. */
const WORDS_FROM = 32;
/** Words summed into the four byte lanes before they are folded, so that no lane passes 255. */
const LANE_WORDS = 255;

function countBytes(buf: Buffer, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) n += (buf[i] as number) >>> 7;
  return n;
}

/** How many bytes of `buf[start, end)` are 0x80 or above. */
export function highByteCount(buf: Buffer, start: number, end: number): number {
  if (end - start < WORDS_FROM) return countBytes(buf, start, end);
  const ab = buf.buffer;
  // A growable ArrayBuffer may have grown since its view was made.
  if (ab !== viewed || ab.byteLength >>> 2 !== words.length) {
    words = new Int32Array(ab, 0, ab.byteLength >>> 2);
    viewed = ab;
  }
  const offset = buf.byteOffset;
  // Bytes up to the first word boundary of the ArrayBuffer, whole words, then the bytes after the last one.
  const aligned = start + ((4 - ((offset + start) & 3)) & 3);
  const last = (offset + end) >>> 2;
  let n = countBytes(buf, start, aligned) + countBytes(buf, (last << 2) - offset, end);
  const w = words;
  for (let k = (offset + aligned) >>> 2; k < last; ) {
    // Each byte lane of `lanes` counts the high bits of that byte of the words.
    const stop = Math.min(last, k + LANE_WORDS);
    let lanes = 0;
    for (; k < stop; k++) lanes = (lanes + (((w[k] as number) >>> 7) & 0x01010101)) | 0;
    n += (lanes & 0xff) + ((lanes >>> 8) & 0xff) + ((lanes >>> 16) & 0xff) + (lanes >>> 24);
  }
  return n;
}
