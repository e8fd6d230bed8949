// Writing a scanned JSON record as the Avro record of the same content, so that a matched record is projected
// and decoded from bytes by the Avro path where projecting it from its text gives up (docs/record-formats.md,
// "JSON on the fast path").
//
// The scan (json-scan.ts) checks every record and reads its filterable fields; only a matched record that
// needs it is written here, from the positions the scan noted, the strings of its header maps
// included (walking them again cost a third of the write, bench/results/PROFILE.md). The Avro record is not
// validated again: the scan made the checks the Avro validation would, and the writer hands the codec the
// leaf starts it wrote (AvroCodec.written), as the validation would have found them.
import type { FieldType } from '../events/catalog.js';
import type { AvroCodec } from './avro-record.js';
import { ABSENT, compileJsonScan, type ScanState } from './json-scan.js';
import type { AvroBytes, FilterableFields } from './record-types.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const TYPE = { string: 0, bool: 1, int32: 2, int64: 3, timestamp: 4, headers: 5, logs: 6 } as const satisfies Record<FieldType, number>;

export interface JsonTranscoder {
  /** The codec of the schema whose records this reads. */
  readonly codec: AvroCodec;
  /** The filterable fields of a record that passes every check, or undefined to decode it the exact way. */
  scan(json: Buffer): FilterableFields | undefined;
  /** The Avro record of a record `scan` accepted, scanning it again if another was scanned since. */
  avro(json: Buffer): AvroBytes;
  /** Where the leaves of a record `scan` accepted lie in its text, scanning it again if another was scanned since. */
  positions(json: Buffer): ScanState;
}

/** Compiles the transcoder of the codec's schema. */
export function createJsonTranscoder(codec: AvroCodec): JsonTranscoder {
  const plan = codec.plan;
  const leaves = plan.leaves.length;
  const state: ScanState = {
    starts: new Int32Array(leaves),
    ends: new Int32Array(leaves),
    escaped: new Uint8Array(leaves),
    numbers: new Float64Array(leaves),
    notes: new Int32Array(NOTES),
    noteFrom: new Int32Array(leaves),
    noteTo: new Int32Array(leaves),
  };
  const scanRecord = compileJsonScan(plan, state);
  const types = Uint8Array.from(plan.leaves.map((l) => TYPE[l.type]));
  const required = Uint8Array.from(plan.leaves.map((l) => (l.required ? 1 : 0)));
  const { starts, ends, escaped, numbers, notes, noteFrom, noteTo } = state;
  const avroStarts = new Int32Array(leaves);
  // The record whose positions are in `state`.
  let scanned: Buffer | undefined;

  const scan = (json: Buffer): FilterableFields | undefined => {
    scanned = undefined;
    const f = scanRecord(json);
    if (f !== undefined) scanned = json;
    return f;
  };

  const write = (json: Buffer): AvroBytes => {
    const out = room(2 * json.length + 2 * leaves + 64);
    const o = out.b;
    const pos = out.at;
    let at = pos;
    for (let slot = 0; slot < leaves; slot++) {
      avroStarts[slot] = at - pos;
      const s = starts[slot] as number;
      if (s === ABSENT) {
        o[at++] = 0;
        continue;
      }
      if (required[slot] === 0) o[at++] = 2;
      const e = ends[slot] as number;
      switch (types[slot]) {
        case TYPE.string:
          at = escaped[slot] === 1 ? escapedString(o, at, json, s, e) : plainString(o, at, json, s, e);
          break;
        case TYPE.bool:
          o[at++] = numbers[slot] as number;
          break;
        case TYPE.headers: {
          const to = noteTo[slot] as number;
          at = to <= NOTES ? notedHeadersAvro(o, at, json, notes, noteFrom[slot] as number, to) : headersAvro(o, at, json, s);
          break;
        }
        case TYPE.logs:
          at = logsAvro(o, at, json, s);
          break;
        default:
          at = long(o, at, numbers[slot] as number);
      }
    }
    used = at;
    const buf = o.subarray(pos, at);
    codec.written(buf, 0, avroStarts);
    return { codec, buf, pos: 0 };
  };

  const positions = (json: Buffer): ScanState => {
    if (scanned !== json && scan(json) === undefined) throw new Error('a JSON record the scan accepted was refused when scanned again');
    return state;
  };

  return {
    codec,
    scan,
    avro(json) {
      positions(json);
      return write(json);
    },
    positions,
  };
}

/** Entries of the scan's notes of header map strings (ScanState.notes): 1,023 strings; a record with more has its maps walked again. */
const NOTES = 2048 - 1;

/** The transcoded records are views into slabs, as the projections' tails are (avro-projection.ts). */
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let used = 0;

function room(need: number): { b: Buffer; at: number } {
  if (slab.length - used < need) {
    slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, need));
    used = 0;
  }
  return { b: slab, at: used };
}

/** Zig-zag values from here on are not exact as doubles. */
const EXACT_ZIGZAG = 2 ** 52;

/** An Avro long (zig-zag varint) of an integer of at most 2^53 in magnitude. */
function long(o: Buffer, at: number, v: number): number {
  if (v >= EXACT_ZIGZAG || v < -EXACT_ZIGZAG) return bigLong(o, at, v);
  let z = v >= 0 ? 2 * v : -2 * v - 1;
  while (z >= 128) {
    o[at++] = (z % 128) | 128;
    z = Math.floor(z / 128);
  }
  o[at++] = z;
  return at;
}

function bigLong(o: Buffer, at: number, v: number): number {
  let z = v >= 0 ? BigInt(v) * 2n : -BigInt(v) * 2n - 1n;
  while (z >= 128n) {
    o[at++] = Number(z & 127n) | 128;
    z >>= 7n;
  }
  o[at++] = Number(z);
  return at;
}

/** Texts at least this long are copied by Buffer.copy, shorter ones byte by byte (cheaper than the native call). */
const NATIVE_COPY_FROM = 64;

/** An Avro string of the JSON string bytes [s, e), which hold no escapes. */
function plainString(o: Buffer, at: number, src: Buffer, s: number, e: number): number {
  at = long(o, at, e - s);
  if (e - s >= NATIVE_COPY_FROM) return at + src.copy(o, at, s, e);
  for (let k = s; k < e; k++) o[at++] = src[k] as number;
  return at;
}

/** The byte an escape's letter stands for (RFC 8259 7); \u is never met here. */
function unescaped(c: number): number {
  switch (c) {
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    default:
      return c;
  }
}

/** An Avro string of the JSON string bytes [s, e), decoding its escapes. */
function escapedString(o: Buffer, at: number, src: Buffer, s: number, e: number): number {
  let n = 0;
  for (let k = s; k < e; k++, n++) if (src[k] === BACKSLASH) k++;
  at = long(o, at, n);
  for (let k = s; k < e; k++) {
    const c = src[k] as number;
    if (c === BACKSLASH) o[at++] = unescaped(src[++k] as number);
    else o[at++] = c;
  }
  return at;
}

/** Skips whitespace in trusted text (already scanned). */
function skipWs(src: Buffer, k: number): number {
  for (;;) {
    const c = src[k];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return k;
    k++;
  }
}

/** The end of the string whose opening quote is at k, in trusted text; `escapes` tells whether it holds any. */
const str = { end: 0, escapes: false };
function stringAt(src: Buffer, k: number): void {
  let escapes = false;
  for (k++; ; k++) {
    const c = src[k];
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      escapes = true;
      k++;
    }
  }
  str.end = k;
  str.escapes = escapes;
}

/** Writes the string whose opening quote is at k as an Avro string; returns the position after its closing quote in `lastEnd`. */
let lastEnd = 0;
function avroString(o: Buffer, at: number, src: Buffer, k: number): number {
  stringAt(src, k);
  lastEnd = str.end + 1;
  return str.escapes ? escapedString(o, at, src, k + 1, str.end) : plainString(o, at, src, k + 1, str.end);
}

/**
 * A header map as an Avro map of string arrays, one entry and one item a block, from the scan's notes of
 * its strings [from, to) (ScanState.notes): a name closes the array of the name before it.
 */
function notedHeadersAvro(o: Buffer, at: number, src: Buffer, notes: Int32Array, from: number, to: number): number {
  let open = false;
  for (let n = from; n < to; n += 2) {
    let s = notes[n] as number;
    const e = notes[n + 1] as number;
    if (s < 0) {
      if (open) o[at++] = 0;
      open = true;
      s = -s;
    }
    o[at++] = 2;
    at = e < 0 ? escapedString(o, at, src, s, ~e) : plainString(o, at, src, s, e);
  }
  if (open) o[at++] = 0;
  o[at++] = 0;
  return at;
}

/** A scanned header map at k as an Avro map of string arrays, one entry and one item a block, found by walking it again (when the scan's notes did not hold it). */
function headersAvro(o: Buffer, at: number, src: Buffer, k: number): number {
  k = skipWs(src, k + 1);
  while (src[k] !== CLOSE_BRACE) {
    o[at++] = 2;
    at = avroString(o, at, src, k);
    k = skipWs(src, skipWs(src, lastEnd) + 1);
    k = skipWs(src, k + 1);
    while (src[k] !== CLOSE_BRACKET) {
      o[at++] = 2;
      at = avroString(o, at, src, k);
      k = skipWs(src, lastEnd);
      if (src[k] === COMMA) k = skipWs(src, k + 1);
    }
    o[at++] = 0;
    k = skipWs(src, k + 1);
    if (src[k] === COMMA) k = skipWs(src, k + 1);
  }
  o[at++] = 0;
  return at;
}

/** The end of the JSON value at k in trusted text. */
function valueEnd(src: Buffer, k: number): number {
  const c = src[k];
  if (c === QUOTE) {
    stringAt(src, k);
    return str.end + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; ; k++) {
      const d = src[k];
      if (d === QUOTE) {
        stringAt(src, k);
        k = str.end;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return k + 1;
      }
    }
  }
  // A number or a literal: up to the next delimiter.
  while (k < src.length) {
    const d = src[k];
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
    k++;
  }
  return k;
}

/** Scanned logs at k as an Avro array of maps whose values are the entries' JSON texts, one item and one entry a block. */
function logsAvro(o: Buffer, at: number, src: Buffer, k: number): number {
  k = skipWs(src, k + 1);
  while (src[k] !== CLOSE_BRACKET) {
    o[at++] = 2;
    k = skipWs(src, k + 1);
    while (src[k] !== CLOSE_BRACE) {
      o[at++] = 2;
      at = avroString(o, at, src, k);
      k = skipWs(src, skipWs(src, lastEnd) + 1);
      const e = valueEnd(src, k);
      at = plainString(o, at, src, k, e);
      k = skipWs(src, e);
      if (src[k] === COMMA) k = skipWs(src, k + 1);
    }
    o[at++] = 0;
    k = skipWs(src, k + 1);
    if (src[k] === COMMA) k = skipWs(src, k + 1);
  }
  o[at++] = 0;
  return at;
}
