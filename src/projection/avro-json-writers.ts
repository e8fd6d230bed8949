// JSON text written straight from Avro bytes the validator has already checked (avro-codegen.ts): the
// leaf writers of the byte projections (avro-projection.ts). Each takes the output buffer, where to
// write, the record's bytes and where the Avro value starts, and returns where its text ends. The text is
// what JSON.stringify writes for the decoded value, as UTF-8.
import { readLong } from '../records/avro-scan.js';

/** Where the last varint read by varint() ended. */
const end = { pos: 0 };

/** The zig-zag varint at `p` (already validated); its end in `end.pos`. */
export function varint(buf: Buffer, p: number): number {
  const b = buf[p] as number;
  if (b < 128) {
    end.pos = p + 1;
    return (b >>> 1) ^ -(b & 1);
  }
  const b2 = buf[p + 1] as number;
  if (b2 < 128) {
    const n = (b & 127) | (b2 << 7);
    end.pos = p + 2;
    return (n >>> 1) ^ -(n & 1);
  }
  return readLong(buf, p, 'long', end);
}

const HEX = '0123456789abcdef';

/**
 * JSON.stringify's escape of one byte below 0x20, a quote or a backslash. Bytes of 0x80 and above are
 * parts of valid UTF-8 sequences (checked by the validator) and are copied: a well-formed string has no
 * lone surrogates, the only other characters JSON.stringify escapes.
 */
function escapeByte(out: Buffer, at: number, c: number): number {
  out[at++] = 0x5c;
  switch (c) {
    case 0x22:
    case 0x5c:
      out[at++] = c;
      return at;
    case 0x08:
      out[at++] = 0x62;
      return at;
    case 0x09:
      out[at++] = 0x74;
      return at;
    case 0x0a:
      out[at++] = 0x6e;
      return at;
    case 0x0c:
      out[at++] = 0x66;
      return at;
    case 0x0d:
      out[at++] = 0x72;
      return at;
    default:
      out[at++] = 0x75;
      out[at++] = 0x30;
      out[at++] = 0x30;
      out[at++] = HEX.charCodeAt(c >> 4);
      out[at++] = HEX.charCodeAt(c & 15);
      return at;
  }
}

/** 1 for the bytes JSON.stringify escapes: below 0x20, the quote and the backslash. */
const ESCAPED = Uint8Array.from({ length: 256 }, (_, c) => (c < 0x20 || c === 0x22 || c === 0x5c ? 1 : 0));

/**
 * The JSON string of the UTF-8 bytes [a, e). A byte loop: Buffer.copy costs more than the loop for the
 * strings of records (a few dozen bytes), measured. The bytes are copied first and checked as they go;
 * a string with a byte to escape (rare) is written again with its escapes.
 */
export function stringBytes(out: Buffer, at: number, buf: Buffer, a: number, e: number): number {
  out[at] = 0x22;
  let o = at + 1;
  let escapes = 0;
  for (let i = a; i < e; i++) {
    const c = buf[i] as number;
    out[o++] = c;
    escapes |= ESCAPED[c] as number;
  }
  if (escapes !== 0) return escapedStringBytes(out, at, buf, a, e);
  out[o] = 0x22;
  return o + 1;
}

/** stringBytes for a string with bytes to escape. */
function escapedStringBytes(out: Buffer, at: number, buf: Buffer, a: number, e: number): number {
  out[at++] = 0x22;
  for (let i = a; i < e; i++) {
    const c = buf[i] as number;
    if (ESCAPED[c] === 0) out[at++] = c;
    else at = escapeByte(out, at, c);
  }
  out[at++] = 0x22;
  return at;
}

/** The JSON string of the Avro string at `p` (its length, then its bytes); the end of the value in `end.pos`. */
export function string(out: Buffer, at: number, buf: Buffer, p: number): number {
  const n = varint(buf, p);
  const a = end.pos;
  end.pos = a + n;
  return stringBytes(out, at, buf, a, a + n);
}

/** The decimal text of an integer of at most 2^53 in magnitude, as JSON.stringify writes it. */
export function integer(out: Buffer, at: number, v: number): number {
  if (v < 0) {
    out[at++] = 0x2d;
    v = -v;
  }
  if (v < 10) {
    out[at++] = 0x30 + v;
    return at;
  }
  if (v < 2 ** 31) {
    // Int32 arithmetic, several times cheaper than % and / on doubles.
    let n = v | 0;
    let digits = 1;
    for (let t = n; t >= 10; t = (t / 10) | 0) digits++;
    for (let i = at + digits - 1; i >= at; i--) {
      const q = (n / 10) | 0;
      out[i] = 0x30 + n - q * 10;
      n = q;
    }
    return at + digits;
  }
  let digits = 1;
  for (let t = v; t >= 10; t = (t - (t % 10)) / 10) digits++;
  let i = at + digits;
  for (let t = v; i > at; t = (t - (t % 10)) / 10) out[--i] = 0x30 + (t % 10);
  return at + digits;
}

export function literal(out: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

/** An Avro boolean's JSON. */
export function boolean(out: Buffer, at: number, buf: Buffer, p: number): number {
  return literal(out, at, buf[p] === 1 ? 'true' : 'false');
}

/** The items count of the Avro block at `p`, skipping a negative count's byte size; the block's first item at `end.pos`. */
function blockCount(buf: Buffer, p: number): number {
  const n = varint(buf, p);
  if (n >= 0) return n;
  varint(buf, end.pos);
  return -n;
}

/**
 * Keys a map holds past this many are looked up in a set: comparing each with every earlier one costs
 * the square of a map's keys, and internet clients choose a request's header names (issue 38: a record
 * of 20,000 names held the event loop 13.6 s). A request's few dozen stay on the copy-free scan.
 */
const SCANNED_KEYS = 32;
/** Starts and lengths of the first SCANNED_KEYS keys of the map being written, to find a repeated key. */
const keySpans = new Int32Array(2 * SCANNED_KEYS);
/** The keys of the map being written once it holds more than SCANNED_KEYS, as latin1 text (one character a byte). */
const manyKeys = new Set<string>();

/**
 * True when the key [a, a + n) of `buf` equals one of the map's `count` keys before it; otherwise notes it
 * as key number `count`. A map's keys are all in the one buffer; its first key comes with `count` 0.
 */
export function repeatsKey(buf: Buffer, count: number, a: number, n: number): boolean {
  if (count >= SCANNED_KEYS) {
    if (count === SCANNED_KEYS) {
      manyKeys.clear();
      for (let k = 0; k < SCANNED_KEYS; k++) manyKeys.add(buf.toString('latin1', keySpans[2 * k] as number, (keySpans[2 * k] as number) + (keySpans[2 * k + 1] as number)));
    }
    const key = buf.toString('latin1', a, a + n);
    if (manyKeys.has(key)) return true;
    manyKeys.add(key);
    return false;
  }
  for (let k = 0; k < count; k++) {
    if (keySpans[2 * k + 1] !== n) continue;
    const b = keySpans[2 * k] as number;
    let same = true;
    for (let i = 0; i < n; i++) {
      if (buf[a + i] !== buf[b + i]) {
        same = false;
        break;
      }
    }
    if (same) return true;
  }
  keySpans[2 * count] = a;
  keySpans[2 * count + 1] = n;
  return false;
}

/**
 * An Avro map of string arrays (the headers) as a JSON object, or -1 when the decoded object would not
 * keep the map's order and entries: a repeated key (the object keeps its first place and last value) or
 * a key starting with a digit (an array index such as "1" comes first in a JavaScript object). The
 * caller writes such a map through the decoded value instead. One pass over the map's keys and values
 * (about 40 strings for the headers of a request): the arrays' loop written here, where a
 * function of its own was not inlined (bench/results/PROFILE.md).
 */
export function stringArrayMap(out: Buffer, at: number, buf: Buffer, p: number): number {
  out[at++] = 0x7b;
  let count = 0;
  for (let n = blockCount(buf, p); n !== 0; n = blockCount(buf, p)) {
    p = end.pos;
    for (let k = 0; k < n; k++) {
      const len = varint(buf, p);
      const a = end.pos;
      const first = buf[a] as number;
      if (len > 0 && first >= 0x30 && first <= 0x39) return -1;
      if (repeatsKey(buf, count, a, len)) return -1;
      if (count > 0) out[at++] = 0x2c;
      count++;
      at = stringBytes(out, at, buf, a, a + len);
      out[at++] = 0x3a;
      // The key's array of strings.
      out[at++] = 0x5b;
      p = a + len;
      let items = 0;
      for (let m = blockCount(buf, p); m !== 0; m = blockCount(buf, p)) {
        p = end.pos;
        for (let j = 0; j < m; j++) {
          if (items++ > 0) out[at++] = 0x2c;
          const vlen = varint(buf, p);
          const v = end.pos;
          at = stringBytes(out, at, buf, v, v + vlen);
          p = v + vlen;
        }
      }
      out[at++] = 0x5d;
      p = end.pos;
    }
  }
  out[at++] = 0x7d;
  return at;
}
